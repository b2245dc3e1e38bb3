// Everything this stack runs is declared in infra.yaml, a pulumi-cloudinfra manifest: the file
// is what pull requests change and reviewers read. A mistake in it (a misspelt plan, a server
// that names a key nobody declared) fails `pulumi preview` with every problem, its line and
// column, and registers nothing.
import * as cloudinfra from "pulumi-cloudinfra";

const infra = new cloudinfra.Manifest("infra", { file: "infra.yaml" });

/** IP address of each server, by its name in infra.yaml. */
export const serverIps = infra.serverIps;
/** Fingerprint of each SSH key, by its name in infra.yaml. */
export const keyFingerprints = infra.keyFingerprints;
/** API key of each `api` user: secret (`pulumi stack output userApiKeys --show-secrets`). */
export const userApiKeys = infra.userApiKeys;
/** Private key of each generated SSH key: secret. */
export const privateKeys = infra.privateKeys;
