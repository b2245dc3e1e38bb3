/** The Server kind: its definition, and the waits for states its API forces on the builder. */
import { isAmbiguousFailure, NotFoundError, ValidationError } from "../../api/errors";
import {
  type CreateServerRequest,
  MANAGEMENT_TRANSITIONS,
  type ManagementAction,
  type Server,
} from "../../api/schemas/servers";
import { messageOf } from "../../lib/message";
import { guardAdoptedReplacement, shown } from "../adopt";
import {
  checkResultOf,
  describeOperation,
  diffInputs,
  type OperationLimits,
  operationError,
  type Props,
  unlessNotFound,
} from "../common";
import { DEFAULT_MAX_SENDS, LOOKUP_MAX_RETRIES, RESEND, sendLookResend } from "../create";
import { resourceIdOf } from "../ids";
import { INPUT_RULES } from "../input-rules";
import { type Deadline, type KindDefinition, kindOperations, parseInputs } from "../kind";
import type { ProviderSession } from "../session";
import * as model from "./model";
import { type Reached, ServerWaitError, serverWatch, waitForServerStatus } from "./watch";

/** Sends `action`, then waits for `target`; a lost answer is resent only when the server shows neither the action's `via` nor its `to`. */
async function perform<T extends model.WaitTarget>(
  session: ProviderSession,
  initial: Server,
  action: ManagementAction,
  target: T,
  deadline: Deadline,
): Promise<Reached<T>> {
  const { client } = session;
  const { id } = initial;
  const transition = MANAGEMENT_TRANSITIONS[action];
  const sentAt = Date.now();
  let failure = "";
  let status = "unknown";
  const sent = await sendLookResend({
    send: () => client.servers.manage(id, { action }, { deadlineAt: deadline.deadlineAt }),
    afterFailure: async (err) => {
      if (!isAmbiguousFailure(err)) throw err;
      failure = err.summary;
      const now = await unlessNotFound(
        client.servers.get(id, { maxRetries: LOOKUP_MAX_RETRIES }),
      ).catch((readErr: unknown) => {
        const why = messageOf(readErr);
        throw new Error(
          `${failure}; reading server ${id} to see whether the ${action} action took failed too (${why}): run the command again`,
          { cause: err },
        );
      });
      if (now === undefined && transition.to !== null) {
        throw new Error(`${failure}; server ${id} is gone (404)`, { cause: err });
      }
      if (now === undefined || now.status === transition.via || now.status === transition.to) {
        return { found: "unknown (its answer was lost)" };
      }
      status = now.status;
      return RESEND;
    },
  });
  if (sent.exhausted) {
    throw new Error(
      `${failure}; the ${action} action was sent ${DEFAULT_MAX_SENDS} times and each time server ${id} showed no sign of it (status ${JSON.stringify(status)}): run the command again`,
    );
  }
  const actionId = sent.answer?.action_id ?? sent.found;
  const waiting = { action, actionId, target, ...deadline, initial, sentAt };
  return waitForServerStatus(serverWatch(session), id, waiting);
}

/** Lets a transition under way finish (an action is refused meanwhile), then starts or stops. */
async function ensurePowerState(
  session: ProviderSession,
  id: number,
  wanted: model.PowerState,
  deadline: Deadline,
): Promise<Server> {
  const watch = serverWatch(session);
  let server = await watch.read(id);
  if (server === undefined) {
    throw new NotFoundError({ status: 404, method: "GET", path: `/v1/servers/${id}` });
  }
  const target = model.settlesIn(server.status);
  if (target === "gone") {
    throw new Error(`server ${id} is being deleted (status "deleting"): it cannot be ${wanted}`);
  }
  if (target !== undefined) {
    const settling = { action: "settle", target, ...deadline, initial: server } as const;
    server = await waitForServerStatus(watch, id, settling);
  }
  if (server.status === "error") {
    throw new Error(
      `server ${id} is in status "error" (its provisioning failed) and cannot be ${wanted}: replace it (pulumi up --replace <urn>) or delete it`,
    );
  }
  const action = wanted === "running" ? "start" : "stop";
  const from: readonly string[] = MANAGEMENT_TRANSITIONS[action].from;
  return from.includes(server.status) ? perform(session, server, action, wanted, deadline) : server;
}

/**
 * Applies the in-place inputs, compared with the live server so that a stale state converges.
 * `before`: the groups this resource listed until now; groups attached by other means stay.
 */
async function converge(
  session: ProviderSession,
  live: Server,
  before: readonly number[],
  inputs: model.ServerInputs,
  deadline: Deadline,
): Promise<Server> {
  const { client } = session;
  if (live.user_defined_name !== inputs.name) {
    await client.servers.update(live.id, { user_defined_name: inputs.name });
  }
  if (live.firewall_enabled !== inputs.firewallEnabled) {
    await client.firewall.setServerFirewall(live.id, { firewall_enabled: inputs.firewallEnabled });
  }
  const attached = new Set(live.security_groups.map((g) => g.id));
  const wanted = inputs.securityGroupIds ?? [];
  for (const groupId of wanted) {
    if (!attached.has(groupId)) await client.firewall.attachServer(groupId, live.id);
  }
  for (const groupId of before) {
    if (wanted.includes(groupId) || !attached.has(groupId)) continue;
    // A group deleted meanwhile is detached already.
    await unlessNotFound(client.firewall.detachServer(groupId, live.id));
  }
  // Left out (an adopted server), the power state is the server's own.
  if (inputs.powerState === undefined) return (await serverWatch(session).read(live.id)) ?? live;
  return ensurePowerState(session, live.id, inputs.powerState, deadline);
}

async function deleteServer(
  session: ProviderSession,
  resourceId: string,
  props: Props,
  limits?: OperationLimits,
) {
  const id = resourceIdOf(resourceId, "a server id");
  const deadline = model.deadlineFor(model.storedInputs(props), "delete", limits);
  const watch = serverWatch(session);
  const initial = await watch.read(id);
  if (initial === undefined) return;
  const target = model.settlesIn(initial.status);
  if (target !== undefined) {
    // The delete action is refused during a transition; one that ends in `error` is fine
    // (an errored server can be deleted), one that ends with the server gone is done.
    try {
      await waitForServerStatus(watch, id, { action: "settle", target, ...deadline, initial });
      if (target === "gone") return;
    } catch (err) {
      if (!(err instanceof ServerWaitError) || target === "gone") throw err;
      if (err.reason === "disappeared") return;
      if (err.reason !== "error") throw err;
    }
  }
  // A 404 to the action: gone already.
  await unlessNotFound(perform(session, initial, "delete", "gone", deadline));
}

export const definition: KindDefinition<
  model.ServerInputs,
  Server,
  CreateServerRequest,
  Server[],
  Props
> = {
  what: { kind: "Server", noun: "server" },
  schema: model.ServerInputsSchema,
  fields: model.FIELDS,
  api: {
    idOf: (server) => server.id,
    list: (client) => ({ key: "servers", read: (options) => client.servers.list(options) }),
    create: (client, request, options) => client.servers.create(request, options),
    idInAnswer: (servers) => servers[0]?.id,
    delete: deleteServer,
  },
  toApi: model.toApi,
  fromApi: (server, known) => model.fromApi(server, model.storedInputs(known)),
  liveInputs: model.storedInputs,
  createDeadline: (inputs, limits) => model.deadlineFor(inputs, "create", limits),
  /** The server exists from here on: a failure keeps it in the stack, or Pulumi forgets it. */
  async created(session, made, inputs, ongoing) {
    const server = made.answer === undefined ? made.found : made.answer[0];
    if (server === undefined) {
      throw new Error(`POST /v1/servers answered no server for id ${made.id}`);
    }
    if (ongoing === undefined) throw new Error("a server create has a deadline (createDeadline)");
    const { deadline, kept } = ongoing;
    const waiting = { action: "create", target: "running", ...deadline, initial: server } as const;
    let last = server;
    try {
      last = await waitForServerStatus(serverWatch(session), server.id, waiting);
      if (inputs.powerState === "stopped") {
        last = await ensurePowerState(session, server.id, "stopped", deadline);
      }
      return model.fromApi(last, inputs);
    } catch (err) {
      if (err instanceof ServerWaitError && err.lastServer !== undefined) last = err.lastServer;
      const message = messageOf(err);
      const next = last.status === "error" ? "replaces it" : "resumes from it";
      const why = `${message}; server ${server.id} exists and is kept in the stack: the next pulumi up ${next}`;
      throw kept(model.fromApi(last, inputs), new Error(why, { cause: err }));
    }
  },
  /** A refused `plan_id` lists every plan id (ids are not names: no "did you mean"). */
  async failureDetail(session, err) {
    if (!(err instanceof ValidationError) || !err.fieldErrors.some((f) => f.field === "plan_id")) {
      return "";
    }
    try {
      const plans = await session.client.catalogue.listPlans({ maxRetries: 0 });
      return `; the plan ids are ${plans.map((plan) => `${plan.id} (${plan.name})`).join(", ")}`;
    } catch {
      return "";
    }
  },
  recovery: {
    describe: (inputs) =>
      `named ${JSON.stringify(inputs.name)} on plan ${inputs.planId} with image ${JSON.stringify(inputs.image)}`,
  },
  // Names are not unique: a 409 is the service's own, not a name taken.
  taken: (_session, _inputs, err) => Promise.resolve(err),
  adoption: {
    read: (session, id) => serverWatch(session).read(id),
    /** The replacing fields, as a refresh would read them: no image without `os`, no SSH keys. */
    mismatches(live, inputs) {
      const found = model.fromApi(live, inputs);
      const wanted: Props = { ...inputs };
      const { replaces = [] } = diffInputs(found, wanted, model.FIELDS);
      return replaces.map((f) => ({ field: f, live: shown(found[f]), wanted: shown(wanted[f]) }));
    },
    refusal(live) {
      if (live.status === "error") {
        return `server ${live.id} is in status "error" and cannot be adopted: its provisioning failed; delete it, or adopt another server`;
      }
      if (model.settlesIn(live.status) === "gone") {
        return `server ${live.id} is in status ${JSON.stringify(live.status)} and cannot be adopted: it is being deleted`;
      }
      return undefined;
    },
    async converge(session, live, inputs) {
      const server = await converge(session, live, [], inputs, model.deadlineFor(inputs, "create"));
      return model.fromApi(server, inputs);
    },
  },
};

export const operations = kindOperations(definition, {
  async check(_session, olds, news) {
    const checked = INPUT_RULES.Server(news);
    if (checked.issues.length > 0) return checkResultOf(checked);
    return { inputs: model.withPowerStateDefault(checked.inputs, olds) };
  },

  async diff(_session, id, olds, news) {
    return guardAdoptedReplacement(definition.what, id, news, model.diffServer(olds, news));
  },

  async update(session, id, olds, news, limits) {
    const before = model.storedInputs(olds);
    const operation = describeOperation("updating", "Server", before.name ?? id);
    const inputs = parseInputs(model.ServerInputsSchema, news, operation);
    const deadline = model.deadlineFor(inputs, "update", limits);
    try {
      const live = await session.client.servers.get(resourceIdOf(id, "a server id"));
      const server = await converge(session, live, before.securityGroupIds ?? [], inputs, deadline);
      return { outs: model.fromApi(server, inputs) };
    } catch (err) {
      throw operationError(operation, err);
    }
  },
});
