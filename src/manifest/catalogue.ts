/**
 * The manifest against the service's catalogue: each server's plan and image resolved through
 * the data sources (`getPlan`, `getImage`: the one lookup of the package), and each role's
 * permission names checked against `getPermissions()`, before anything is registered.
 *
 * Servers that ask for the same plan (or image) share one lookup, so a fleet of a hundred
 * servers on three plans costs three catalogue requests. A misspelt name is answered with the
 * nearest names of the catalogue; a failure to reach the service is reported once, not per server.
 */

import { DataSourceError, NoMatchError } from "../functions/errors";
import { getImage, getImages } from "../functions/images";
import { getPermissions } from "../functions/permissions";
import { getPlan, getPlans } from "../functions/plans";
import { messageOf } from "../lib/message";
import { didYouMean } from "../lib/names";
import type { LocatedIssue, YamlSource } from "../lib/yaml-document";
import { entriesOf } from "./load";
import { type ImageSpec, ImageSpecSchema, type PlanSpec, PlanSpecSchema } from "./schema";

/** What the catalogue decided for each server, by manifest name. */
export interface CatalogueChoices {
  /** Plan id by server name. */
  planIds: ReadonlyMap<string, number>;
  /** Image name by server name. */
  images: ReadonlyMap<string, string>;
}

/** A lookup that failed because of the manifest (no match, several matches, bad criteria). */
function isManifestMistake(err: unknown): err is DataSourceError {
  return err instanceof DataSourceError && err.constructor !== DataSourceError;
}

/** The data source's message without its `getPlan: ` prefix: the path already says what it is. */
function reason(err: DataSourceError): string {
  const prefix = `${err.function}: `;
  return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
}

/** The exact name a spec asks for, when it asks for nothing else. */
function nameOnly(spec: PlanSpec | ImageSpec): string | undefined {
  if (typeof spec === "string") return spec;
  const given = Object.entries(spec).filter(([, v]) => v !== undefined);
  return given.length === 1 && typeof spec.name === "string" ? spec.name : undefined;
}

interface Lookup<Spec, Result> {
  field: "plan" | "image";
  noun: string;
  schema: { safeParse(value: unknown): { success: true; data: Spec } | { success: false } };
  resolve(spec: Spec): Promise<Result>;
  names(): Promise<string[]>;
}

class CatalogueCheck {
  readonly issues: LocatedIssue[] = [];
  private unreachable: string | undefined;

  constructor(
    private readonly source: YamlSource,
    private readonly value: unknown,
  ) {}

  /** Reports the first failure to reach the catalogue; later ones say the same. */
  private failed(err: unknown): void {
    this.unreachable ??= messageOf(err);
  }

  /** Resolves one field of every server, one lookup per distinct spec. */
  async resolveServers<Spec extends PlanSpec | ImageSpec, Result>(
    lookup: Lookup<Spec, Result>,
  ): Promise<Map<string, Result>> {
    const bySpec = new Map<string, { spec: Spec; servers: string[] }>();
    for (const [server, entry] of Object.entries(entriesOf(this.value, "servers"))) {
      const parsed = lookup.schema.safeParse(entry[lookup.field]);
      if (!parsed.success) continue; // the schema reports it
      const id = JSON.stringify(parsed.data);
      const group = bySpec.get(id) ?? { spec: parsed.data, servers: [] };
      group.servers.push(server);
      bySpec.set(id, group);
    }
    const resolved = new Map<string, Result>();
    let names: Promise<string[]> | undefined;
    await Promise.all(
      [...bySpec.values()].map(async ({ spec, servers }) => {
        try {
          const result = await lookup.resolve(spec);
          for (const server of servers) resolved.set(server, result);
        } catch (err) {
          if (!isManifestMistake(err)) return this.failed(err);
          let message = reason(err);
          const wanted = nameOnly(spec);
          if (err instanceof NoMatchError && wanted !== undefined) {
            names ??= lookup.names();
            const all = await names.catch(() => [] as string[]);
            message =
              `no ${lookup.noun} is named ${JSON.stringify(wanted)}` +
              didYouMean(wanted, all, { otherwise: `${lookup.noun}s: ${all.join(", ")}` });
          }
          for (const server of servers) {
            this.issues.push(this.source.issue(["servers", server, lookup.field], message));
          }
        }
      }),
    );
    return resolved;
  }

  /** Checks every role's permission names against the catalogue (letter case aside). */
  async checkPermissions(): Promise<void> {
    const roles = Object.entries(entriesOf(this.value, "roles"));
    if (roles.length === 0) return;
    let catalogue: string[];
    try {
      catalogue = (await getPermissions()).names;
    } catch (err) {
      return this.failed(err);
    }
    const known = new Set(catalogue.map((name) => name.toLowerCase()));
    for (const [role, entry] of roles) {
      const permissions = entry["permissions"];
      if (!Array.isArray(permissions)) continue;
      permissions.forEach((name: unknown, index) => {
        if (typeof name !== "string" || known.has(name.trim().toLowerCase())) return;
        const hint = didYouMean(name, catalogue, {
          otherwise: `permissions: ${catalogue.join(", ")}`,
        });
        this.issues.push(
          this.source.issue(
            ["roles", role, "permissions", index],
            `unknown permission ${JSON.stringify(name)}${hint}`,
          ),
        );
      });
    }
  }

  /** The single issue for a catalogue that could not be read at all. */
  unreachableIssue(): LocatedIssue | undefined {
    if (this.unreachable === undefined) return undefined;
    return {
      file: this.source.file,
      line: 1,
      column: 1,
      path: "",
      message: `cannot check plans, images and permissions against the service's catalogue: ${this.unreachable}`,
    };
  }
}

/**
 * Resolves the servers' plans and images and checks the roles' permissions. Reads the document
 * leniently: servers and roles that are otherwise wrong are still checked, so every mistake is
 * reported at once.
 */
export async function checkAgainstCatalogue(
  source: YamlSource,
): Promise<{ choices: CatalogueChoices; issues: LocatedIssue[] }> {
  const check = new CatalogueCheck(source, source.value);
  const [planIds, images] = await Promise.all([
    check.resolveServers<PlanSpec, number>({
      field: "plan",
      noun: "plan",
      schema: PlanSpecSchema,
      resolve: async (spec) => (await getPlan(typeof spec === "string" ? { name: spec } : spec)).id,
      names: async () => (await getPlans()).names,
    }),
    check.resolveServers<ImageSpec, string>({
      field: "image",
      noun: "image",
      schema: ImageSpecSchema,
      resolve: async (spec) =>
        (await getImage(typeof spec === "string" ? { name: spec } : spec)).name,
      names: async () => (await getImages()).names,
    }),
    check.checkPermissions(),
  ]);
  const unreachable = check.unreachableIssue();
  const issues = unreachable === undefined ? check.issues : [unreachable, ...check.issues];
  return { choices: { planIds, images }, issues };
}
