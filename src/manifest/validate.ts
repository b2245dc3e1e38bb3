import type { LocatedIssue } from "../lib/yaml-document";
import { type CatalogueChoices, checkAgainstCatalogue } from "./catalogue";
import { type LoadedManifest, loadManifest } from "./load";
import type { ManifestDocument } from "./schema";

/** A manifest checked end to end: the file, the schema, references, and the catalogue. */
export type ValidatedManifest =
  | {
      ok: true;
      file: string;
      document: ManifestDocument;
      choices: CatalogueChoices;
      /** The public keys of `publicKeyFile` entries, read, by entry name. */
      publicKeyFiles: ReadonlyMap<string, string>;
    }
  | { ok: false; file: string; issues: LocatedIssue[] };

/**
 * Checks the manifest at `file` completely, reporting every problem at once: the YAML, the
 * schema, entry names and references, and (through the data sources, with the program's
 * `cloudinfra:*` settings) the plans, images and permissions it names. Nothing is registered.
 */
export async function validateManifest(file: string): Promise<ValidatedManifest> {
  return validateLoaded(loadManifest(file));
}

/** {@link validateManifest} of a manifest already read. */
export async function validateLoaded(loaded: LoadedManifest): Promise<ValidatedManifest> {
  const { file, source } = loaded;
  // A file that is not even YAML has nothing the catalogue could be asked about.
  if (source === undefined) return { ok: false, file, issues: loaded.issues };
  const { choices, issues } = await checkAgainstCatalogue(source);
  const all = [...loaded.issues, ...issues];
  if (loaded.document === undefined || all.length > 0) return { ok: false, file, issues: all };
  return {
    ok: true,
    file,
    document: loaded.document,
    choices,
    publicKeyFiles: loaded.publicKeyFiles,
  };
}
