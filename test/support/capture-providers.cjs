// Run by test/support/engine.ts with the fixture project as working directory: constructs each
// resource class of the built package under Pulumi mocks, as a user's program would, and prints
// the serialized `__provider` of each as JSON keyed by class name.
const { createRequire } = require("node:module");
const path = require("node:path");

const packageEntry = require.resolve("pulumi-cloudinfra", { paths: [process.cwd()] });
const fromPackage = createRequire(packageEntry);
const pulumi = fromPackage("@pulumi/pulumi");
const cloudinfra = require(packageEntry);

const captured = {};
pulumi.runtime.setMocks(
  {
    newResource(args) {
      const type = args.type.split(":").pop();
      if (typeof args.inputs.__provider === "string") captured[type] = args.inputs.__provider;
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: () => ({}),
  },
  "engine-fixture",
  "test",
  false,
);

const classes = [
  "Server",
  "SshKey",
  "Tag",
  "Role",
  "User",
  "SecurityGroup",
  "SecurityGroupAttachment",
];
const pending = [];
for (const name of classes) {
  const Class = cloudinfra[name];
  if (typeof Class !== "function") continue;
  const resource = new Class(`capture-${name.toLowerCase()}`, {});
  pending.push(new Promise((ok) => resource.urn.apply(ok)));
}
Promise.all(pending).then(() => {
  process.stdout.write(JSON.stringify(captured));
  void path;
});
