// @ts-check
// The native flavour for test programs: one `pulumi.CustomResource` class per kind with the
// package schema's token (`cloudinfra:index:<Kind>`), served by the `cloudinfra` provider plugin,
// beside the package's data sources. It declares the same outputs as the dynamic classes (their
// own lists), so a program switches flavour by changing its `require` alone.
// TODO(schema17): the package's TypeScript native flavour replaces this stand-in once merged.
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const dist = require("node:path").join(__dirname, "..", "..", "dist", "resources");
/** @type {Record<string, [string, string]>} kind -> [module folder, outputs constant] */
const KINDS = {
  Server: ["server", "SERVER_OUTPUTS"],
  SshKey: ["ssh-key", "SSH_KEY_OUTPUTS"],
  Tag: ["tag", "TAG_OUTPUTS"],
  Role: ["role", "ROLE_OUTPUTS"],
  User: ["user", "USER_OUTPUTS"],
  SecurityGroup: ["security-group", "SECURITY_GROUP_OUTPUTS"],
  SecurityGroupAttachment: ["security-group-attachment", "ATTACHMENT_OUTPUTS"],
};

/** @param {string} kind */
function nativeClass(kind) {
  const [folder, constant] = KINDS[kind] ?? [];
  const outputs = Object.keys(require(`${dist}/${folder}/index.js`)[constant ?? ""]);
  const token = `cloudinfra:index:${kind}`;
  const cls = class extends pulumi.CustomResource {
    /**
     * @param {string} name
     * @param {Record<string, unknown>} args
     * @param {pulumi.CustomResourceOptions} [opts]
     */
    constructor(name, args, opts) {
      const props = Object.fromEntries(outputs.map((o) => [o, undefined]));
      super(token, name, { ...props, ...args }, opts);
    }
    /**
     * @param {string} name
     * @param {pulumi.Input<string>} id
     * @param {pulumi.CustomResourceOptions} [opts]
     */
    static get(name, id, opts) {
      return new cls(name, {}, { ...opts, id });
    }
  };
  Object.defineProperty(cls, "name", { value: kind });
  return cls;
}

/** The explicit provider of another account or endpoint: `new Provider("b", {apiKey, ...})`. */
class Provider extends pulumi.ProviderResource {
  /**
   * @param {string} name
   * @param {{endpoint?: pulumi.Input<string>, apiKey?: pulumi.Input<string>, caCert?: pulumi.Input<string>}} args
   * @param {pulumi.ResourceOptions} [opts]
   */
  constructor(name, args, opts) {
    const apiKey = args.apiKey === undefined ? undefined : pulumi.secret(args.apiKey);
    super("cloudinfra", name, { ...args, apiKey }, opts);
  }
}

module.exports = { ...cloudinfra, Provider };
for (const kind of Object.keys(KINDS)) module.exports[kind] = nativeClass(kind);
