/**
 * What the tools the gitops workflows call document, copied from their sources at the version the
 * workflows pin, so a test can refuse an input or flag that the tool does not have. When a
 * workflow moves to another major version of an action, copy that version's inputs here.
 */

/** Inputs of each action, as its `action.yml` declares them (none of them is `required`). */
export const ACTION_INPUTS: Record<string, { source: string; inputs: readonly string[] }> = {
  "pulumi/actions@v7": {
    source: "pulumi/actions action.yml at tag v7 (8e5e406f4007fca908480587cb9893c07090f58d)",
    inputs: [
      "command",
      "stack-name",
      "pulumi-version",
      "pulumi-version-file",
      "work-dir",
      "comment-on-pr",
      "comment-on-pr-number",
      "comment-on-summary",
      "github-token",
      "cloud-url",
      "secrets-provider",
      "parallel",
      "message",
      "config-map",
      "expect-no-changes",
      "diff",
      "replace",
      "exclude",
      "exclude-dependents",
      "target",
      "target-dependents",
      "policyPacks",
      "policyPackConfigs",
      "refresh",
      "upsert",
      "remove",
      "edit-pr-comment",
      "color",
      "exclude-protected",
      "plan",
      "suppress-outputs",
      "suppress-progress",
      "always-include-summary",
      "continue-on-error",
      "log-verbosity",
      "log-flow",
      "debug",
    ],
  },
  "actions/checkout@v6": {
    source: "actions/checkout action.yml at tag v6 (d23441a48e516b6c34aea4fa41551a30e30af803)",
    inputs: [
      "repository",
      "ref",
      "token",
      "ssh-key",
      "ssh-known-hosts",
      "ssh-strict",
      "ssh-user",
      "persist-credentials",
      "path",
      "clean",
      "filter",
      "sparse-checkout",
      "sparse-checkout-cone-mode",
      "fetch-depth",
      "fetch-tags",
      "show-progress",
      "lfs",
      "submodules",
      "set-safe-directory",
      "github-server-url",
      "allow-unsafe-pr-checkout",
    ],
  },
  "actions/setup-node@v6": {
    source: "actions/setup-node action.yml at tag v6 (249970729cb0ef3589644e2896645e5dc5ba9c38)",
    inputs: [
      "node-version",
      "node-version-file",
      "architecture",
      "check-latest",
      "registry-url",
      "scope",
      "token",
      "cache",
      "package-manager-cache",
      "cache-dependency-path",
      "mirror",
      "mirror-token",
    ],
  },
  "actions/setup-python@v6": {
    source: "actions/setup-python action.yml at tag v6 (ece7cb06caefa5fff74198d8649806c4678c61a1)",
    inputs: [
      "python-version",
      "python-version-file",
      "cache",
      "architecture",
      "check-latest",
      "token",
      "cache-dependency-path",
      "update-environment",
      "allow-prereleases",
      "freethreaded",
      "pip-version",
      "pip-install",
    ],
  },
};

/**
 * pulumi/actions v7's README: "Accepted values are up (alias: update), refresh, destroy, preview
 * and output. If unspecified, the action will stop after installing Pulumi", and `stack-name` "is
 * required if a command was specified".
 */
export const PULUMI_ACTION_COMMANDS = ["up", "update", "refresh", "destroy", "preview", "output"];

/**
 * The flags the workflows may give each Pulumi CLI command: those of pulumi/pulumi's
 * pkg/cmd/pulumi (operations/{preview,up,refresh,destroy,import}.go, stack/stack_new.go,
 * auth/login.go, install/install.go, packagecmd/package_add.go, config/, stack/stack_export.go)
 * that the pipelines have a use for.
 */
export const PULUMI_FLAGS: Record<string, readonly string[]> = {
  preview: ["stack", "json", "diff", "expect-no-changes", "refresh", "suppress-outputs"],
  up: ["stack", "yes", "diff", "skip-preview", "refresh", "expect-no-changes", "suppress-outputs"],
  refresh: [
    "stack",
    "preview-only",
    "expect-no-changes",
    "json",
    "yes",
    "diff",
    "suppress-outputs",
  ],
  destroy: ["stack", "yes", "remove", "preview-only", "diff"],
  "stack init": ["secrets-provider"],
  "stack export": [],
  login: ["local"],
  import: ["stack", "yes", "generate-code"],
  install: [],
  package: [],
  config: [],
};

/** A shell script of a workflow step, and where it is (for messages). */
export interface WorkflowScript {
  where: string;
  text: string;
}

/** `pulumi refresh --stack prod ...` in every script, as [command, flags]. */
export function pulumiCommands(
  scripts: readonly WorkflowScript[],
): { where: string; command: string; flags: string[] }[] {
  const out: { where: string; command: string; flags: string[] }[] = [];
  for (const { where, text } of scripts) {
    for (const match of text.matchAll(/(?:^|[\s;(])pulumi ((?:stack )?[a-z]+)([^\n|;>&]*)/g)) {
      const command = match[1] ?? "";
      const flags = [...(match[2] ?? "").matchAll(/--([a-z-]+)/g)].map((m) => m[1] ?? "");
      out.push({ where, command, flags });
    }
  }
  return out;
}

/** What `pulumiCommands` found that PULUMI_FLAGS does not know: one line per command or flag. */
export function unknownPulumiFlags(
  used: readonly { where: string; command: string; flags: readonly string[] }[],
): string[] {
  const problems: string[] = [];
  for (const { where, command, flags } of used) {
    const known = PULUMI_FLAGS[command];
    if (known === undefined)
      problems.push(`${where}: pulumi ${command} is not in documented-interfaces.ts`);
    else
      for (const flag of flags)
        if (!known.includes(flag)) problems.push(`${where}: pulumi ${command} --${flag}`);
  }
  return problems;
}
