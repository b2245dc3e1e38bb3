/**
 * The Server kind: its definition, and what its API forces on top of the builder. Lifecycle: create one server and wait for `running` (then stop it when asked),
 * or adopt an existing one (`adoptId`); update renames, toggles the firewall, attaches/detaches
 * listed security groups and starts or stops; delete sends the delete action and waits for 404.
 * Every wait is bounded by `timeouts`.
 */
import type { CloudInfraClient } from "../../api/client";
import { isAmbiguousFailure, NotFoundError, ValidationError } from "../../api/errors";
import {
  type CreateServerRequest,
  MANAGEMENT_TRANSITIONS,
  type ManagementAction,
  type Server,
} from "../../api/schemas/servers";
import { adopt, guardAdoptedReplacement, type Mismatch, shown } from "../adopt";
import {
  checkResultOf,
  describeOperation,
  type OperationLimits,
  operationError,
  type Props,
  partialCreateError,
  unlessNotFound,
} from "../common";
import { createExactlyOnce, LOOKUP_MAX_RETRIES } from "../create";
import { resourceIdOf } from "../ids";
import { INPUT_RULES } from "../input-rules";
import {
  type KindDefinition,
  kindOperations,
  kindTools,
  matchesRequest,
  nameIn,
  parseInputs,
} from "../kind";
import { DEFAULT_MAX_SENDS, RESEND, sendLookResend } from "../resend";
import type { ProviderSession } from "../session";
import {
  diffServer,
  FIELDS,
  formatDuration,
  fromApi,
  inputsOf,
  osOf,
  type PowerState,
  type ServerInputs,
  ServerInputsSchema,
  storedInputs,
  type TimeoutKind,
  timeoutMs,
  timeoutSetting,
  toApi,
  withPowerStateDefault,
} from "./model";
import { ServerWaitError, settlesIn, waitForServerStatus } from "./wait";
import { serverWatch } from "./watch";

const ANSWER_LOST = "unknown (its answer was lost)";

/**
 * A create the service refused for its `plan_id` says which plans there are (ids are not names:
 * no "did you mean", the whole list, as `getPlans()` would give it), after the service's answer.
 * Nothing more when the list cannot be read.
 */
async function planChoices(client: CloudInfraClient, err: unknown): Promise<string> {
  if (!(err instanceof ValidationError) || !err.fieldErrors.some((f) => f.field === "plan_id")) {
    return "";
  }
  try {
    const plans = await client.catalogue.listPlans({ maxRetries: 0 });
    return `; the plan ids are ${plans.map((plan) => `${plan.id} (${plan.name})`).join(", ")}`;
  } catch {
    return "";
  }
}

/** Limits of one operation: when to give up, and the setting to name when it does. */
interface Deadline {
  at: number;
  setting: string;
}

/**
 * The deadline of one operation's waits: the server's own `timeouts` input, else the engine's
 * `customTimeouts` (a native plugin's request), else the default.
 */
function deadlineFor(
  inputs: Partial<ServerInputs>,
  kind: TimeoutKind,
  limits?: OperationLimits,
): Deadline {
  const custom = limits?.timeoutMs;
  if (inputs.timeouts?.[kind] === undefined && custom !== undefined && custom > 0) {
    return {
      at: Date.now() + custom,
      setting: `customTimeouts.${kind} (now ${formatDuration(custom)})`,
    };
  }
  return { at: Date.now() + timeoutMs(inputs, kind), setting: timeoutSetting(inputs, kind) };
}

/**
 * The server as a request sent after this call shows it, or `undefined` when it does not exist.
 * Reads that arrive together share one request (watch.ts).
 */
function getOrGone(session: ProviderSession, id: number): Promise<Server | undefined> {
  return serverWatch(session).read(id);
}

/**
 * Sends a management action through the one resend loop ({@link sendLookResend}). A management
 * call is not repeatable blindly: when its answer is lost, the server is read (patiently) and the
 * action is sent again only if the server shows no sign of it (neither its transitional nor its
 * final status), up to {@link DEFAULT_MAX_SENDS} times.
 */
async function sendAction(
  session: ProviderSession,
  id: number,
  action: ManagementAction,
  deadline: Deadline,
): Promise<string> {
  const { client } = session;
  const transition = MANAGEMENT_TRANSITIONS[action];
  let failure: string | undefined;
  let status = "unknown";
  const sent = await sendLookResend({
    send: () => client.servers.manage(id, { action }, { deadlineAt: deadline.at }),
    afterFailure: async (err): Promise<{ found: typeof ANSWER_LOST } | typeof RESEND> => {
      if (!isAmbiguousFailure(err)) throw err;
      failure = err.summary;
      let now: Server | undefined;
      try {
        now = await unlessNotFound(client.servers.get(id, { maxRetries: LOOKUP_MAX_RETRIES }));
      } catch (readErr) {
        const why = readErr instanceof Error ? readErr.message : String(readErr);
        throw new Error(
          `${failure}; reading server ${id} to see whether the ${action} action took failed too (${why}): run the command again`,
          { cause: err },
        );
      }
      if (now === undefined) {
        if (transition.to === null) return { found: ANSWER_LOST };
        throw new Error(`${failure}; server ${id} is gone (404)`, { cause: err });
      }
      if (now.status === transition.via || now.status === transition.to) {
        return { found: ANSWER_LOST };
      }
      status = now.status;
      return RESEND;
    },
  });
  if (sent.answer !== undefined) return sent.answer.action_id;
  if (sent.found !== undefined) return sent.found;
  throw new Error(
    `${failure}; the ${action} action was sent ${DEFAULT_MAX_SENDS} times and each time server ${id} showed no sign of it (status ${JSON.stringify(status)}): run the command again`,
  );
}

/**
 * Brings a server to the wanted power state: first lets a transition under way finish (an
 * action would be refused meanwhile), then starts or stops it if needed. Returns its last state.
 */
async function ensurePowerState(
  session: ProviderSession,
  id: number,
  wanted: PowerState,
  deadline: Deadline,
): Promise<Server> {
  let server = await getOrGone(session, id);
  if (server === undefined) {
    throw new NotFoundError({ status: 404, method: "GET", path: `/v1/servers/${id}` });
  }
  const settling = settlesIn(server.status);
  if (settling === "gone") {
    throw new Error(`server ${id} is being deleted (status "deleting"): it cannot be ${wanted}`);
  }
  if (settling !== undefined) {
    server = await waitForServerStatus(serverWatch(session), id, {
      action: "settle",
      target: settling,
      deadlineAt: deadline.at,
      timeoutSetting: deadline.setting,
      initial: server,
    });
  }
  if (server.status === "error") {
    throw new Error(
      `server ${id} is in status "error" (its provisioning failed) and cannot be ${wanted}: replace it (pulumi up --replace <urn>) or delete it`,
    );
  }
  const action: ManagementAction | undefined =
    wanted === "running" && server.status === "stopped"
      ? "start"
      : wanted === "stopped" && server.status === "running"
        ? "stop"
        : undefined;
  if (action === undefined) return server;
  const sentAt = Date.now();
  const actionId = await sendAction(session, id, action, deadline);
  return waitForServerStatus(serverWatch(session), id, {
    action,
    actionId,
    target: wanted,
    deadlineAt: deadline.at,
    timeoutSetting: deadline.setting,
    initial: server,
    sentAt,
  });
}

/**
 * Attaches the listed groups that are not attached, and detaches the groups this resource
 * listed before and no longer lists. Groups attached by other means are left alone.
 */
async function reconcileSecurityGroups(
  session: ProviderSession,
  server: Server,
  before: readonly number[],
  wanted: readonly number[],
): Promise<void> {
  const { client } = session;
  const attached = new Set(server.security_groups.map((g) => g.id));
  for (const groupId of wanted) {
    if (!attached.has(groupId)) await client.firewall.attachServer(groupId, server.id);
  }
  for (const groupId of before) {
    if (wanted.includes(groupId) || !attached.has(groupId)) continue;
    try {
      await client.firewall.detachServer(groupId, server.id);
    } catch (err) {
      // A group deleted meanwhile is detached already.
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
}

/**
 * Brings an existing server to the program's in-place properties: name, firewall, the listed
 * security groups (`before`: those this resource listed until now) and power state. Compared with
 * the live server, so a stale state still converges. Returns the server's last state.
 */
async function converge(
  session: ProviderSession,
  live: Server,
  before: readonly number[],
  inputs: ServerInputs,
  deadline: Deadline,
): Promise<Server> {
  const { client } = session;
  if (live.user_defined_name !== inputs.name) {
    await client.servers.update(live.id, { user_defined_name: inputs.name });
  }
  if (live.firewall_enabled !== inputs.firewallEnabled) {
    await client.firewall.setServerFirewall(live.id, { firewall_enabled: inputs.firewallEnabled });
  }
  await reconcileSecurityGroups(session, live, before, inputs.securityGroupIds ?? []);
  // Left out (an adopted server), the power state is the server's own.
  if (inputs.powerState === undefined) return (await getOrGone(session, live.id)) ?? live;
  return ensurePowerState(session, live.id, inputs.powerState, deadline);
}

/** Deletes a server and waits until it answers 404; a server already gone is success. */
async function deleteServer(session: ProviderSession, id: number, deadline: Deadline) {
  const server = await getOrGone(session, id);
  if (server === undefined) return;
  const watch = serverWatch(session);
  const limits = { deadlineAt: deadline.at, timeoutSetting: deadline.setting, initial: server };
  const settling = settlesIn(server.status);
  if (settling === "gone") {
    await waitForServerStatus(watch, id, { action: "settle", target: "gone", ...limits });
    return;
  }
  if (settling !== undefined) {
    // The delete action is refused during a transition; one that ends in `error` is fine
    // (an errored server can be deleted), one that ends with the server gone is done.
    try {
      await waitForServerStatus(watch, id, { action: "settle", target: settling, ...limits });
    } catch (err) {
      if (!(err instanceof ServerWaitError)) throw err;
      if (err.reason === "disappeared") return;
      if (err.reason !== "error") throw err;
    }
  }
  let actionId: string;
  const sentAt = Date.now();
  try {
    actionId = await sendAction(session, id, "delete", deadline);
  } catch (err) {
    if (err instanceof NotFoundError) return;
    throw err;
  }
  await waitForServerStatus(watch, id, {
    action: "delete",
    actionId,
    target: "gone",
    ...limits,
    sentAt,
  });
}

function serverIdOf(id: string): number {
  return resourceIdOf(id, "a server id");
}

/**
 * Servers: names are not unique, so only a server that did not exist before the request can be
 * taken for its (../create.ts); the power state is reached after the create and never matched.
 */
export const definition: KindDefinition<
  ServerInputs,
  Server,
  CreateServerRequest,
  Server[],
  Props
> = {
  what: { kind: "Server", noun: "server" },
  schema: ServerInputsSchema,
  rules: INPUT_RULES.Server,
  fields: FIELDS,
  api: {
    idOf: (server) => server.id,
    list: (client) => ({ key: "servers", read: (options) => client.servers.list(options) }),
    create: (client, request) => client.servers.create(request),
    idInAnswer: (servers) => servers[0]?.id,
    delete: (session, id, props, limits) =>
      deleteServer(session, serverIdOf(id), deadlineFor(storedInputs(props), "delete", limits)),
  },
  toApi,
  fromApi: (server, known) => fromApi(server, storedInputs(known)),
  liveInputs: inputsOf,
  /**
   * Adopting a server: the plan is always checked; the image only when the service reports it
   * (the `os` entry); the SSH keys never, because the API does not report them: they are taken as
   * the program says. A server that failed or is being deleted is refused. Then the name,
   * firewall, listed groups and power state converge in place.
   */
  adoption: {
    read: (session, id) => getOrGone(session, id),
    mismatches(live, inputs) {
      const out: Mismatch[] = [];
      if (live.plan_id !== inputs.planId) {
        out.push({ field: "planId", live: shown(live.plan_id), wanted: shown(inputs.planId) });
      }
      const os = osOf(live);
      if (os !== undefined && os !== inputs.image) {
        out.push({ field: "image", live: shown(os), wanted: shown(inputs.image) });
      }
      return out;
    },
    refusal(live) {
      if (live.status === "error") {
        return `server ${live.id} is in status "error" and cannot be adopted: its provisioning failed; delete it, or adopt another server`;
      }
      if (settlesIn(live.status) === "gone") {
        return `server ${live.id} is in status ${JSON.stringify(live.status)} and cannot be adopted: it is being deleted`;
      }
      return undefined;
    },
    async converge(session, live, inputs) {
      const server = await converge(session, live, [], inputs, deadlineFor(inputs, "create"));
      return fromApi(server, inputs);
    },
  },
};

const tools = kindTools(definition);

/**
 * POST /v1/servers for exactly one server, through the toolkit (a lost answer makes no second; a
 * host killed while the server provisioned leaves it for the next create to take over). Call
 * `close()` once the create returns to the engine.
 */
async function createOne(
  session: ProviderSession,
  inputs: ServerInputs,
  deadline: Deadline,
): Promise<{ server: Server; close(): void }> {
  const { client } = session;
  const request = toApi(inputs);
  const made = await createExactlyOnce({
    what: definition.what,
    describe: `named ${JSON.stringify(inputs.name)} on plan ${inputs.planId} with image ${JSON.stringify(inputs.image)}`,
    session,
    lookup: {
      key: "servers",
      read: (options) => client.servers.list(options),
      idOf: (server) => server.id,
      matches: (server) => matchesRequest(definition, server, inputs),
    },
    // A 429 is waited out within the create's own timeout (timeouts.create).
    send: () => client.servers.create(request, { deadlineAt: deadline.at }),
    idInAnswer: (servers) => servers[0]?.id,
    request,
    closesLater: true,
  });
  const server = made.answer === undefined ? made.found : made.answer[0];
  if (server === undefined) {
    made.close();
    throw new Error(`POST /v1/servers answered no server for id ${made.id}`);
  }
  return { server, close: made.close };
}

export const operations = kindOperations(definition, {
  async check(_session, olds, news) {
    const checked = INPUT_RULES.Server(news);
    if (checked.issues.length > 0) return checkResultOf(checked);
    return { inputs: withPowerStateDefault(checked.inputs, olds) };
  },

  async diff(_session, id, olds, news) {
    return guardAdoptedReplacement(definition.what, id, news, diffServer(olds, news));
  },

  async create(session, props, limits) {
    const operation = describeOperation("creating", "Server", nameIn(props));
    const inputs = parseInputs(ServerInputsSchema, props, operation);
    if (inputs.adoptId !== undefined) return adopt(tools.adoption(session), inputs, inputs.adoptId);
    const deadline = deadlineFor(inputs, "create", limits);
    const sentAt = Date.now();
    let created: Server;
    let close: () => void;
    try {
      ({ server: created, close } = await createOne(session, inputs, deadline));
    } catch (err) {
      throw operationError(operation, err, await planChoices(session.client, err));
    }
    // The server exists from here on: every failure must carry its id, or Pulumi forgets it.
    let last = created;
    try {
      last = await waitForServerStatus(serverWatch(session), created.id, {
        action: "create",
        target: "running",
        deadlineAt: deadline.at,
        timeoutSetting: deadline.setting,
        initial: created,
        sentAt,
      });
      if (inputs.powerState === "stopped") {
        last = await ensurePowerState(session, created.id, "stopped", deadline);
      }
      return { id: String(created.id), outs: fromApi(last, inputs) };
    } catch (err) {
      if (err instanceof ServerWaitError && err.lastServer !== undefined) last = err.lastServer;
      const message = err instanceof Error ? err.message : String(err);
      const recovery =
        last.status === "error"
          ? "the next pulumi up replaces it"
          : "the next pulumi up resumes from it";
      throw partialCreateError(
        operation,
        String(created.id),
        fromApi(last, inputs),
        props,
        new Error(`${message}; server ${created.id} exists and is kept in the stack: ${recovery}`, {
          cause: err,
        }),
      );
    } finally {
      // Returned to the engine either way, with the id: no later create may take it over.
      close();
    }
  },

  async update(session, id, olds, news, limits) {
    const before = storedInputs(olds);
    const operation = describeOperation("updating", "Server", before.name ?? id);
    const inputs = parseInputs(ServerInputsSchema, news, operation);
    const deadline = deadlineFor(inputs, "update", limits);
    try {
      // Compared with the live server rather than the old state, so a stale state (no refresh)
      // still converges.
      const live = await session.client.servers.get(serverIdOf(id));
      const server = await converge(session, live, before.securityGroupIds ?? [], inputs, deadline);
      return { outs: fromApi(server, inputs) };
    } catch (err) {
      throw operationError(operation, err);
    }
  },
});
