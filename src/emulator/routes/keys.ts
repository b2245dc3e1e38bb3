/**
 * SSH keys (spec: SSH keys): import a public key, or generate an Ed25519 pair whose private half
 * is answered once and never stored.
 */
import { CreateKeyRequestSchema } from "../../api/schemas/keys";
import { findOr404 } from "../http/http-errors";
import { defineRoute } from "../http/router";
import { createKey, deleteKey } from "../service/keys";
import type { AccountState, SshKeyRecord } from "../store/state";

function keyView(account: AccountState, key: SshKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    public_key: key.public_key,
    fingerprint: key.fingerprint,
    user_id: key.user_id,
    account_id: account.profile.id,
    created_at: key.created_at,
    updated_at: key.updated_at,
  };
}

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/keys",
    handler: (ctx) => ctx.json(ctx.account.keys.all().map((key) => keyView(ctx.account, key))),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/keys",
    body: CreateKeyRequestSchema,
    handler(ctx) {
      const { key, privateKey } = createKey(ctx, ctx.body);
      const envelope = { success: true, key: keyView(ctx.account, key) };
      return ctx.json(
        privateKey === undefined ? envelope : { ...envelope, private_key: privateKey },
        201,
      );
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/keys/:id",
    handler(ctx) {
      const key = findOr404(ctx.account.keys, ctx.intParam("id"), "SSH key");
      return ctx.json(keyView(ctx.account, key));
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/keys/:id",
    handler(ctx) {
      const key = findOr404(ctx.account.keys, ctx.intParam("id"), "SSH key");
      deleteKey(ctx.account, key);
      return ctx.generic(`SSH key ${key.id} deleted`);
    },
  }),
];
