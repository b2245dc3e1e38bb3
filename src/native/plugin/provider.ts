/**
 * One configured instance of the native `cloudinfra` provider: what the plugin's gRPC server
 * (server.ts) calls, in plain objects. Every resource call goes to the SAME implementation the
 * dynamic resources use (`operationsOf(kind)` of the stable entry point), so the two flavours cannot
 * drift apart; this module only adds what the native protocol has and the dynamic one lacks:
 * provider configuration with its check and diff, secrets kept secret, preview answers with
 * unknowns, field-level diffs and the import read.
 */
import { ConfigurationError } from "../../api/errors";
import { type ConfigSource, resolveSettings, type Settings } from "../../config";
import { operationsOf } from "../../provider";
import {
  checkWithAutonaming,
  keepAutonameMarker,
  type NamingRequest,
} from "../../resources/autoname";
import type { KindOperations, OperationLimits } from "../../resources/common";
import {
  generatedSecrets,
  isResourceKind,
  RESOURCE_KINDS,
  type ResourceKind,
} from "../../resources/kinds";
import { type ProviderSession, sessionFor } from "../../resources/session";
import { PACKAGE_NAME, resourceToken } from "../package";
import type { EngineLog } from "./engine-log";
import { stoppable } from "./operation-limits";
import { outputNames } from "./outputs";
import { adoptUnread, UNREADABLE, withUnread } from "./unread";
import { isSecret, type Props, rewrap, same, UNKNOWN, unwrap } from "./values";

const PACKAGE = PACKAGE_NAME;

/** The provider's configuration keys, as a program or `cloudinfra:*` stack config sets them. */
export const CONFIG_KEYS = ["endpoint", "apiKey", "caCert"] as const;
type ConfigKey = (typeof CONFIG_KEYS)[number];

/** The kind a URN's type names, or an error that lists the kinds this provider serves. */
export function kindOfUrn(urn: string): ResourceKind {
  const qualified = urn.split("::")[2] ?? "";
  const type = qualified.split("$").at(-1) ?? "";
  const match = /^cloudinfra:index:(\w+)$/.exec(type);
  const kind = match?.[1];
  if (kind === undefined || !isResourceKind(kind)) {
    const known = RESOURCE_KINDS.map(resourceToken);
    throw new Error(
      `cloudinfra: this provider has no resource type ${JSON.stringify(type)}; it serves ${known.join(", ")}`,
    );
  }
  return kind;
}

/** How a detailed diff names a change of one property (the protocol's PropertyDiff.Kind). */
export type PropertyDiffKind = "add" | "delete" | "update";
export interface PropertyDiff {
  kind: PropertyDiffKind;
  replace: boolean;
}

export interface DiffAnswer {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** Top-level properties that change, by name; what the CLI shows per field. */
  detailedDiff: Record<string, PropertyDiff>;
}

export interface CheckAnswer {
  inputs: Props;
  failures: { property: string; reason: string }[];
}

/**
 * The detailed diff of `news` against `olds` restricted to the properties an implementation's
 * diff did not call stable: a property it found equal by its own rule (a colour's case, an
 * id's spelling) is never reported.
 */
export function detailedDiff(
  olds: Props,
  news: Props,
  result: { changes: boolean; replaces: string[]; stables: readonly string[] | undefined },
): Record<string, PropertyDiff> {
  const out: Record<string, PropertyDiff> = {};
  if (!result.changes) return out;
  const stables = new Set(result.stables ?? []);
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  for (const key of [...keys].sort()) {
    // `__provider`, `__defaults`: the engine's and the provider's bookkeeping, no user's field.
    if (key.startsWith("__") || stables.has(key)) continue;
    const replace = result.replaces.includes(key);
    const before = olds[key];
    const after = news[key];
    if (!replace && same(before, after) && after !== UNKNOWN) continue;
    const kind: PropertyDiffKind =
      before === undefined ? "add" : after === undefined ? "delete" : "update";
    out[key] = { kind, replace };
  }
  return out;
}

function configSource(config: Partial<Record<ConfigKey, string>>): ConfigSource {
  return {
    get: (key) =>
      key.startsWith(`${PACKAGE}:`)
        ? config[key.slice(PACKAGE.length + 1) as ConfigKey]
        : undefined,
  };
}

/** The plain configuration strings of a Configure or CheckConfig request; unknowns stay out. */
function plainConfig(args: Props): {
  config: Partial<Record<ConfigKey, string>>;
  unknown: ConfigKey[];
  failures: { property: string; reason: string }[];
} {
  const config: Partial<Record<ConfigKey, string>> = {};
  const unknown: ConfigKey[] = [];
  const failures: { property: string; reason: string }[] = [];
  for (const key of CONFIG_KEYS) {
    const raw = args[key];
    const value = isSecret(raw) ? raw.value : raw;
    if (value === undefined || value === null || value === "") continue;
    if (value === UNKNOWN) unknown.push(key);
    else if (typeof value === "string") config[key] = value;
    else failures.push({ property: key, reason: `expected a string, got ${typeof value}` });
  }
  return { config, unknown, failures };
}

/**
 * One provider instance. Configure gives it its own {@link ProviderSession} (client, list cache,
 * create journal), so two instances for two accounts never share one, even in one process.
 */
export class NativeProvider {
  /** Set by Configure: false while a setting is still unknown (a preview before it is known). */
  private known = false;
  private configured = false;
  private settings: Settings | undefined;
  private settingsError: Error | undefined;
  private session: ProviderSession | undefined;
  /** Where warnings (and `CLOUDINFRA_LOG=debug` lines) go: the engine's Log, else stderr. */
  private readonly log: EngineLog | undefined;
  /** Set by Cancel: this instance's session, and any made later, have their waits ended. */
  private cancelled = false;

  constructor(log?: EngineLog) {
    this.log = log;
  }

  /**
   * CheckConfig: the settings, with the environment fallbacks the resources use
   * (`CLOUDINFRA_*`), must make a usable connection. Unknown values pass (preview).
   */
  checkConfig(news: Props): CheckAnswer {
    const { config, unknown, failures } = plainConfig(news);
    if (failures.length > 0 || unknown.length > 0) return { inputs: news, failures };
    try {
      resolveSettings(configSource(config));
    } catch (err) {
      if (!(err instanceof ConfigurationError)) throw err;
      const property = CONFIG_KEYS.find((k) => err.message.includes(`${PACKAGE}:${k}`)) ?? "";
      return { inputs: news, failures: [{ property, reason: err.message }] };
    }
    return { inputs: news, failures: [] };
  }

  /**
   * DiffConfig: which settings changed. None replaces the provider's resources: a new endpoint
   * or key is how the same objects are reached, not other objects (moving objects between
   * accounts is not something a key change can do).
   */
  diffConfig(olds: Props, news: Props): DiffAnswer {
    const before = plainConfig(olds).config;
    const after = plainConfig(news);
    const detailed: Record<string, PropertyDiff> = {};
    for (const key of CONFIG_KEYS) {
      const a = before[key];
      const b = after.unknown.includes(key) ? UNKNOWN : after.config[key];
      if (a === b) continue;
      detailed[key] = {
        kind: a === undefined ? "add" : b === undefined ? "delete" : "update",
        replace: false,
      };
    }
    return {
      changes: Object.keys(detailed).length > 0,
      replaces: [],
      deleteBeforeReplace: false,
      detailedDiff: detailed,
    };
  }

  /** Configure: the instance's settings; with a setting still unknown only previews can run. */
  configure(args: Props): void {
    const { config, unknown, failures } = plainConfig(args);
    const failure = failures[0];
    if (failure !== undefined)
      throw new ConfigurationError(`cloudinfra: ${failure.property}: ${failure.reason}`);
    this.known = unknown.length === 0;
    try {
      this.settings = resolveSettings(configSource(config));
      this.settingsError = undefined;
    } catch (err) {
      // Only an error once a call needs the API: a preview may run before the config is known.
      if (!(err instanceof ConfigurationError)) throw err;
      this.settings = undefined;
      this.settingsError = err;
    }
    this.session = this.settings === undefined ? undefined : this.sessionOf(this.settings);
    this.configured = true;
  }

  /**
   * Cancel (the engine's Ctrl-C): every wait of the session ends now, with the error that keeps
   * what exists in the stack (a server being created is recorded with its id, and the next
   * `pulumi up` resumes from it).
   */
  cancel(): void {
    this.cancelled = true;
    this.session?.cancel();
  }

  /** The session of `settings`, as Configure makes it; cancelled already after a Cancel. */
  private sessionOf(settings: Settings): ProviderSession {
    const logger = this.log?.debugLogger();
    const session = sessionFor({
      ...settings,
      projectDir: process.cwd(),
      ...(logger === undefined ? {} : { logger }),
    });
    if (this.cancelled) session.cancel();
    return session;
  }

  /** The session Configure made, passed to every call; the settings' error when it made none. */
  private instanceSession(): ProviderSession {
    if (this.session !== undefined) return this.session;
    throw this.settingsError ?? new Error("cloudinfra: the provider was called before Configure");
  }

  private implementation(urn: string): {
    kind: ResourceKind;
    ops: KindOperations;
    session: ProviderSession;
  } {
    if (!this.configured) {
      throw new Error("cloudinfra: the provider was called before Configure");
    }
    const kind = kindOfUrn(urn);
    return { kind, ops: operationsOf(kind), session: this.instanceSession() };
  }

  /**
   * Invoke: one data source (`cloudinfra:index:getPlan`), on this instance's session. Its refusal
   * (bad arguments, no match, the API's error) comes back as failures, the data source's message
   * as the reason and the arguments given as the property.
   */
  async invoke(
    token: string,
    args: Props,
  ): Promise<{ result: Props } | { failures: { property: string; reason: string }[] }> {
    if (!this.configured) throw new Error("cloudinfra: the provider was called before Configure");
    this.requireKnownConfig(`invoke ${token}`);
    const session = this.instanceSession();
    // The data sources load @pulumi/pulumi whole (their `...Output` variants): only an Invoke
    // pays for that, not the plugin's start.
    const { invokeFunction } = await import("./functions.ts");
    const { DataSourceError } = await import("../../functions/errors.ts");
    const plain = unwrap(args).plain;
    try {
      return { result: await invokeFunction(token, plain, session, this.settings?.apiKey ?? "") };
    } catch (err) {
      if (!(err instanceof DataSourceError)) throw err;
      const property = Object.keys(plain).join(", ");
      return { failures: [{ property, reason: err.message }] };
    }
  }

  private requireKnownConfig(operation: string): void {
    if (!this.known) {
      throw new Error(
        `cloudinfra: cannot ${operation}: the provider's configuration is not known yet (it depends on a resource that is not created); run \`pulumi up\` to create it first`,
      );
    }
  }

  /** Check, with autonaming from the engine's request (`naming`: URN, seed, configuration). */
  async check(urn: string, olds: Props, news: Props, naming?: NamingRequest): Promise<CheckAnswer> {
    const { kind, ops, session } = this.implementation(urn);
    const input = unwrap(news);
    const before = unwrap(olds).plain;
    const result = await checkWithAutonaming(kind, before, input.plain, naming, (n) =>
      ops.check(session, before, n),
    );
    return {
      inputs: rewrap(result.inputs ?? input.plain, input.secretKeys),
      failures: (result.failures ?? []).map((f) => ({ property: f.property, reason: f.reason })),
    };
  }

  /** Diff: `olds` are the old outputs (what the dynamic host hands over too), `oldInputs` the old inputs. */
  async diff(
    urn: string,
    id: string,
    olds: Props,
    news: Props,
    oldInputs: Props,
  ): Promise<DiffAnswer> {
    const { ops, session } = this.implementation(urn);
    const plainNews = unwrap(news).plain;
    const inputsGiven = Object.keys(oldInputs).length > 0 ? unwrap(oldInputs).plain : {};
    const oldOutputs = adoptUnread(unwrap(olds).plain, inputsGiven, plainNews);
    const result = await ops.diff(session, id, oldOutputs, plainNews);
    const changes = result.changes === true;
    const replaces = result.replaces ?? [];
    const before: Props = {};
    // Only input properties take part: an output such as `status` is not the program's to change.
    for (const key of new Set([...Object.keys(inputsGiven), ...Object.keys(plainNews)])) {
      before[key] = key in inputsGiven ? inputsGiven[key] : oldOutputs[key];
    }
    return {
      changes,
      replaces,
      deleteBeforeReplace: result.deleteBeforeReplace === true,
      detailedDiff: detailedDiff(before, plainNews, {
        changes,
        replaces,
        stables: result.stables,
      }),
    };
  }

  async create(
    urn: string,
    news: Props,
    preview: boolean,
    limits: OperationLimits = {},
  ): Promise<{ id: string; outputs: Props }> {
    const input = unwrap(news);
    if (preview) {
      // No API call: a preview runs even before the configuration is known.
      const outputs = {
        ...unknownOutputs(kindOfUrn(urn)),
        ...rewrap(input.plain, input.secretKeys),
      };
      return { id: "", outputs };
    }
    this.requireKnownConfig("create");
    const { kind, ops, session } = this.implementation(urn);
    const made = await stoppable(session, "create", limits, () =>
      ops.create(session, input.plain, limits),
    );
    const adopted = input.plain["adoptId"];
    if (adopted !== undefined && adopted !== null) {
      this.log?.warn(
        `cloudinfra: ${kind} ${made.id} was adopted (adoptId), not created: this stack now manages the existing object and deletes it when the resource is deleted`,
        urn,
      );
    }
    return {
      id: made.id,
      outputs: rewrap((made.outs ?? {}) as Props, input.secretKeys, generatedSecrets(kind)),
    };
  }

  /**
   * Read, which the engine sends for three purposes, told apart by {@link readPurpose}: an
   * import (the inputs returned are those a program would have written, so the `up` after an
   * import is a no-op; what the API cannot return is left out, listed and warned about), a
   * `.get()` and a refresh. A `.get()` reads the object as a refresh does, from the state it
   * sends (the `X.get` state, empty without one): no warning, nothing marked unread, a get's
   * inputs not being the program's. `limits`: the request's `timeout` (the user's
   * `customTimeouts.read`), as for a create.
   */
  async read(
    urn: string,
    id: string,
    state: Props | undefined,
    inputs: Props | undefined,
    limits: OperationLimits = {},
  ): Promise<{ id: string; outputs: Props; inputs: Props | undefined }> {
    const { kind, ops, session } = this.implementation(urn);
    this.requireKnownConfig("read");
    const purpose = readPurpose(state, inputs);
    const importing = purpose === "import";
    if (purpose !== "refresh" && kind === "User") {
      throw new Error(
        importing
          ? `cloudinfra: User ${JSON.stringify(id)} cannot be imported: the API has no call that reads a user (only create, change role and delete), so nothing could fill in its name, type and role, and its API key is shown only once, at creation; declare the user in the program instead (a new user, with a new key)`
          : `cloudinfra: User ${JSON.stringify(id)} cannot be read with User.get: the API has no call that reads a user (only create, change role and delete), so nothing could fill in its name, type and role; declare the user in the program instead (a new user, with a new key)`,
      );
    }
    const stored = unwrap(state ?? {});
    const given = unwrap(inputs ?? {});
    const answer = await stoppable(session, "read", limits, () =>
      ops.read(session, id, importing ? undefined : stored.plain),
    );
    if (answer.id === undefined || answer.id === "")
      return { id: "", outputs: {}, inputs: undefined };
    const unread = importing ? UNREADABLE[kind] : undefined;
    if (unread !== undefined)
      this.log?.warn(`cloudinfra: ${kind} ${answer.id}: ${unread.warning}`, urn);
    const read = withUnread(
      (answer.props ?? {}) as Props,
      answer.inputs as Props | undefined,
      importing ? unread?.fields : undefined,
      importing ? {} : stored.plain,
      given.plain,
    );
    return {
      id: answer.id,
      outputs: rewrap(read.outputs, stored.secretKeys, generatedSecrets(kind)),
      inputs:
        read.inputs === undefined
          ? undefined
          : rewrap(keepAutonameMarker(given.plain, read.inputs), given.secretKeys),
    };
  }

  async update(
    urn: string,
    id: string,
    olds: Props,
    news: Props,
    preview: boolean,
    limits: OperationLimits = {},
  ): Promise<{ outputs: Props }> {
    const before = unwrap(olds);
    const input = unwrap(news);
    const secretKeys = new Set([...before.secretKeys, ...input.secretKeys]);
    if (preview) return { outputs: rewrap({ ...before.plain, ...input.plain }, secretKeys) };
    this.requireKnownConfig("update");
    const { kind, ops, session } = this.implementation(urn);
    const updated = await stoppable(session, "update", limits, () =>
      ops.update(session, id, before.plain, input.plain, limits),
    );
    return {
      outputs: rewrap(
        { ...before.plain, ...(updated.outs ?? {}) } as Props,
        secretKeys,
        generatedSecrets(kind),
      ),
    };
  }

  async delete(urn: string, id: string, state: Props, limits: OperationLimits = {}): Promise<void> {
    const { ops, session } = this.implementation(urn);
    this.requireKnownConfig("delete");
    await stoppable(session, "delete", limits, () =>
      ops.delete(session, id, unwrap(state).plain, limits),
    );
  }
}

/**
 * What a Read is for, told as pulumi/pulumi's engine sends it (pkg/resource/deploy/step.go,
 * marshalled by provider_plugin.go, which leaves a nil map unset): an import (ImportStep) sets
 * neither `inputs` nor `properties`; a `.get()` (ReadStep) sends the registration's inputs as
 * both, set even when empty; a refresh (RefreshStep) the stack's inputs and outputs. A refresh
 * whose outputs are its inputs (a SecurityGroupAttachment's) looks like a `.get()`, and is read
 * the same way; only a User tells them apart, and its outputs always hold its `userId`.
 */
export function readPurpose(
  state: Props | undefined,
  inputs: Props | undefined,
): "import" | "get" | "refresh" {
  if (inputs === undefined) return "import";
  return state !== undefined && same(state, inputs) ? "get" : "refresh";
}

/** A preview's outputs: every declared output unknown, until the inputs fill some in. */
function unknownOutputs(kind: ResourceKind): Props {
  return Object.fromEntries(outputNames(kind).map((name) => [name, UNKNOWN]));
}
