// The typed client, without Pulumi: an ES module (top-level await), run with Node 22.19 or newer.
// It reads the endpoint, key and CA from the CLOUDINFRA_* variables that
// `eval "$(npm run -s emulator:env)"` sets, makes a server, waits for it to run, lists the tags,
// and deletes the server again.
import {
  CloudInfraClient,
  isAmbiguousFailure,
  NotFoundError,
  ValidationError,
} from "pulumi-cloudinfra/api";

const client = new CloudInfraClient({
  endpoint: process.env.CLOUDINFRA_ENDPOINT ?? "", // https:// only: http:// is refused before sending
  apiKey: process.env.CLOUDINFRA_API_KEY ?? "",
  caCert: process.env.CLOUDINFRA_CA_CERT, // PEM text or a file; only for a private CA (the emulator)
  timeoutMs: 30_000, // per attempt (the default)
  maxRetries: 4, // the default; retries follow docs/wire-contract.md, "Retries"
});
try {
  const [server] = await client.servers.create({
    plan_id: 1,
    image: "ubuntu-24.04",
    user_defined_name: "client-example",
  });
  const tags = await client.tags.list({ timeoutMs: 5_000, maxRetries: 0 }); // options per call
  if (server) {
    // A server starts `provisioning`; it can be deleted once `running` (poll, at most a minute).
    const deadline = Date.now() + 60_000;
    let { status } = server;
    while (status === "provisioning" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      ({ status } = await client.servers.get(server.id));
    }
    console.log(`server ${server.id} is ${status}; ${tags.length} tags`);
    await client.servers.manage(server.id, { action: "delete" }); // leaves nothing behind
  }
  await client.servers.get(999_999);
} catch (error) {
  if (error instanceof NotFoundError) console.log(`gone (request ${error.requestId})`);
  else if (error instanceof ValidationError) console.log(error.fieldErrors);
  else if (isAmbiguousFailure(error)) console.log("may have been applied: look before retrying");
  else throw error;
} finally {
  await client.close(); // closes its keep-alive connections
}
