import { describe, expect, it } from "vitest";
import type { z } from "zod";
import * as s from "../../src/api/schemas";
import * as fx from "./client-fixtures";

/** The field errors a request body produces, as `field: message` lines. */
function problems(schema: z.ZodType, input: unknown): string[] {
  const result = s.checkRequest(schema, input);
  return result.success ? [] : result.fieldErrors.map((e) => `${e.field}: ${e.message}`);
}

function fieldsAtFault(schema: z.ZodType, input: unknown): string[] {
  const result = s.checkRequest(schema, input);
  return result.success ? [] : result.fieldErrors.map((e) => e.field);
}

const responses: [string, z.ZodType, unknown][] = [
  ["GenericResponse", s.GenericResponseSchema, fx.genericOk],
  ["Server", s.ServerSchema, fx.server],
  ["Plan", s.PlanSchema, fx.plan],
  ["Metrics", s.MetricsSchema, fx.metrics],
  ["ManagementResponse", s.ManagementResponseSchema, fx.managementResponse],
  ["Tag", s.TagSchema, fx.tag],
  ["Permission", s.PermissionSchema, fx.permission],
  ["Role", s.RoleSchema, fx.role],
  ["CreateUserResponse", s.CreateUserResponseSchema, fx.createUserResponse],
  ["User", s.UserSchema, fx.user],
  ["Account", s.AccountSchema, fx.account],
  ["Introspect", s.IntrospectSchema, fx.introspect],
  ["Order", s.OrderSchema, fx.order],
  ["Invoice", s.InvoiceSchema, fx.invoice],
  ["InvoicePayment", s.InvoicePaymentSchema, fx.invoicePayment],
  ["PaymentMethod", s.PaymentMethodSchema, fx.paymentMethod],
  ["SecurityGroup", s.SecurityGroupSchema, fx.securityGroup],
  ["SecurityGroups", s.SecurityGroupsPageSchema, fx.securityGroupsPage(1, 20, 1, [31])],
  ["Ticket", s.TicketSchema, fx.ticket],
  ["Reply", s.ReplySchema, fx.reply],
  ["Key", s.KeySchema, fx.key],
  ["KeyEnvelope", s.KeyEnvelopeSchema, fx.keyEnvelope],
  ["BlogPost", s.BlogPostSchema, fx.blogPost(1)],
  ["BlogPosts", s.BlogPostsPageSchema, fx.blogPostsPage(1, 20, 1, [1])],
  ["Country", s.CountrySchema, fx.country],
  ["Image", s.ImageSchema, fx.image],
];

describe("response schemas are lenient", () => {
  it.each(responses)(
    "%s reads a field the service adds later, and drops it",
    (_, schema, sample) => {
      const parsed = schema.parse({ ...(sample as object), added_later: { any: "thing" } });
      expect(parsed).toEqual(sample);
    },
  );

  it("reads a server without the fields the spec does not promise", () => {
    const { vm_id, ip, order_id, plan, status_date, ...bare } = fx.server;
    const parsed = s.ServerSchema.parse(bare);
    expect(parsed.vm_id).toBeUndefined();
    expect(parsed.plan).toBeUndefined();
    expect(parsed.user_defined_name).toBe("web-1");
  });

  it("reads null for fields a real service leaves empty", () => {
    const parsed = s.ServerSchema.parse({ ...fx.server, vm_id: null, ip: null });
    expect(parsed.vm_id).toBeNull();
    expect(parsed.ip).toBeNull();
    expect(
      s.RoleSchema.parse({ ...fx.role, account_id: null, created_by: null }).account_id,
    ).toBeNull();
  });

  it("reads a missing or null nested list as an empty list", () => {
    const { tags, ...noTags } = fx.server;
    const parsed = s.ServerSchema.parse({ ...noTags, security_groups: null, data: null });
    expect(parsed.tags).toEqual([]);
    expect(parsed.security_groups).toEqual([]);
    expect(parsed.data).toEqual([]);
  });

  it("parses relations one level deep: a tag's servers carry no tags", () => {
    const parsed = s.TagSchema.parse({ ...fx.tag, servers: [fx.server] });
    expect(parsed.servers[0]?.user_defined_name).toBe("web-1");
    expect(parsed.servers[0]).not.toHaveProperty("tags");
  });

  it("still rejects a wrong type in a promised field", () => {
    expect(s.ServerSchema.safeParse({ ...fx.server, id: "11" }).success).toBe(false);
    expect(s.ServerSchema.safeParse({ ...fx.server, created_at: "yesterday" }).success).toBe(false);
  });

  it("accepts RFC 3339 timestamps with offsets and fractions", () => {
    for (const t of [
      "2024-05-01T12:00:00Z",
      "2024-05-01T12:00:00.123456Z",
      "2024-05-01T14:00:00+02:00",
    ]) {
      expect(s.TimestampSchema.safeParse(t).success, t).toBe(true);
    }
    for (const t of ["2024-05-01", "2024-05-01 12:00:00", "1714564800"]) {
      expect(s.TimestampSchema.safeParse(t).success, t).toBe(false);
    }
  });

  it("reads an error body with and without field errors", () => {
    const body = {
      success: false,
      message: "bad",
      code: "invalid_request",
      errors: [{ field: "plan_id", message: "no such plan" }],
    };
    expect(s.ErrorBodySchema.parse(body)).toEqual(body);
    expect(
      s.ErrorBodySchema.parse({ success: false, message: "gone", code: "not_found" }).errors,
    ).toBeUndefined();
    expect(s.ErrorBodySchema.safeParse({ success: true, message: "x", code: "x" }).success).toBe(
      false,
    );
  });
});

describe("KeyValue in both forms", () => {
  it("server metadata uses `value`, plan metadata uses `val`", () => {
    expect(s.ServerDataEntrySchema.parse({ name: "os", value: "debian-12" })).toEqual({
      name: "os",
      value: "debian-12",
    });
    expect(s.PlanDataEntrySchema.parse({ name: "cpu", val: "2" })).toEqual({
      name: "cpu",
      val: "2",
    });
    expect(s.ServerDataEntrySchema.safeParse({ name: "os", val: "debian-12" }).success).toBe(false);
    expect(s.PlanDataEntrySchema.safeParse({ name: "cpu", value: "2" }).success).toBe(false);
  });

  it("reads an entry without a name, and numbers or booleans as text", () => {
    expect(s.ServerDataEntrySchema.parse({ value: 4 })).toEqual({ value: "4" });
    expect(s.PlanDataEntrySchema.parse({ name: "ipv6", val: true })).toEqual({
      name: "ipv6",
      val: "true",
    });
  });
});

describe("money", () => {
  it.each(["0.00", "12.50", "-3.00", "1234567.89"])("accepts %s", (amount) => {
    expect(s.InvoiceSchema.safeParse({ ...fx.invoice, total_amount: amount }).success).toBe(true);
  });

  it.each(["12.5", "12", "1,00", "12.505", " 1.00", "", 12.5])("rejects %j", (amount) => {
    const result = s.InvoiceSchema.safeParse({ ...fx.invoice, total_amount: amount });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["total_amount"]);
  });
});

describe("request schemas are strict", () => {
  const server = { plan_id: 3, image: "debian-12", user_defined_name: "web-1" };

  it("rejects an unknown key, naming it", () => {
    expect(problems(s.CreateServerRequestSchema, { ...server, plan: 3 })).toEqual([
      "plan: unknown field",
    ]);
  });

  it("names every field at fault with a readable message", () => {
    expect(problems(s.CreateServerRequestSchema, { plan_id: "3", image: "debian-12" })).toEqual([
      "plan_id: expected a positive integer",
      "user_defined_name: is required",
    ]);
    expect(
      problems(s.CreateServerRequestSchema, { ...server, plan_id: -1, user_defined_name: "  " }),
    ).toEqual([
      "plan_id: expected a positive integer",
      "user_defined_name: must not be empty or blank",
    ]);
  });

  it("defaults quantity to 1 and bounds it", () => {
    expect(s.CreateServerRequestSchema.parse(server).quantity).toBe(1);
    expect(fieldsAtFault(s.CreateServerRequestSchema, { ...server, quantity: 0 })).toEqual([
      "quantity",
    ]);
    expect(fieldsAtFault(s.CreateServerRequestSchema, { ...server, quantity: 11 })).toEqual([
      "quantity",
    ]);
    expect(fieldsAtFault(s.CreateServerRequestSchema, { ...server, ssh_key_ids: [1, 1] })).toEqual([
      "ssh_key_ids",
    ]);
  });

  it("accepts only the four management actions", () => {
    for (const action of s.MANAGEMENT_ACTIONS) {
      expect(problems(s.ManagementRequestSchema, { action })).toEqual([]);
    }
    expect(problems(s.ManagementRequestSchema, { action: "restart" })).toEqual([
      'action: expected one of "start", "stop", "reboot", "delete"',
    ]);
  });

  it("accepts a colour only as #RRGGBB", () => {
    for (const color of ["#A1b2C3", "#000000", "#ffffff"]) {
      expect(problems(s.CreateTagRequestSchema, { name: "prod", color }), color).toEqual([]);
    }
    for (const color of ["#fff", "red", "A1B2C3", "#GGGGGG", "#A1B2C3 "]) {
      expect(problems(s.CreateTagRequestSchema, { name: "prod", color }), color).toEqual([
        "color: expected a colour of the form #RRGGBB",
      ]);
    }
  });

  describe("users", () => {
    it("requires a DID for did users, of the form did:<method>:<id>", () => {
      expect(problems(s.CreateUserRequestSchema, { name: "bot", type: "did", role_id: 1 })).toEqual(
        ["did: is required"],
      );
      expect(
        problems(s.CreateUserRequestSchema, {
          name: "bot",
          type: "did",
          role_id: 1,
          did: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
        }),
      ).toEqual([]);
      expect(
        problems(s.CreateUserRequestSchema, {
          name: "bot",
          type: "did",
          role_id: 1,
          did: "did:web:example.com:users:ada",
        }),
      ).toEqual([]);
      for (const did of ["z6Mkha", "did:key", "did:key:", "did:KEY:abc", "did::abc"]) {
        expect(
          fieldsAtFault(s.CreateUserRequestSchema, { name: "bot", type: "did", role_id: 1, did }),
          did,
        ).toEqual(["did"]);
      }
    });

    it("refuses a DID on an api user and an unknown type", () => {
      expect(
        problems(s.CreateUserRequestSchema, {
          name: "ci",
          type: "api",
          role_id: 1,
          did: "did:key:abc",
        }),
      ).toEqual(["did: unknown field"]);
      expect(
        fieldsAtFault(s.CreateUserRequestSchema, { name: "ci", type: "human", role_id: 1 }),
      ).toEqual(["type"]);
      expect(problems(s.CreateUserRequestSchema, { name: "ci", type: "api", role_id: 1 })).toEqual(
        [],
      );
    });

    it("checks the profile's e-mail and password, and refuses service-owned account fields", () => {
      expect(
        fieldsAtFault(s.UpdateUserProfileRequestSchema, {
          email: "not-an-address",
          password: "short",
        }),
      ).toEqual(["email", "password"]);
      expect(problems(s.UpdateAccountRequestSchema, { verified: true, credits: 5 })).toEqual([
        "verified: unknown field",
        "credits: unknown field",
      ]);
      expect(fieldsAtFault(s.UpdateAccountRequestSchema, { country: "de" })).toEqual(["country"]);
      expect(
        problems(s.UpdateAccountRequestSchema, {
          country: "DE",
          phone: "+49 30 1234567",
          company: "",
        }),
      ).toEqual([]);
    });
  });

  describe("firewall rules", () => {
    const group = (rules: unknown[]) => ({ name: "web", rules });

    it.each(["22", "1", "65535", "8000-8080", "80-80"])("accepts dport %s", (dport) => {
      expect(
        problems(s.SecurityGroupRequestSchema, group([{ action: "ACCEPT", proto: "tcp", dport }])),
      ).toEqual([]);
    });

    it.each(["0", "65536", "8080-8000", "22,23", "abc", " 22", "1-70000", ""])(
      "rejects dport %j",
      (dport) => {
        expect(
          fieldsAtFault(
            s.SecurityGroupRequestSchema,
            group([{ action: "ACCEPT", proto: "udp", dport }]),
          ),
        ).toEqual(["rules[0].dport"]);
      },
    );

    it("refuses a port for icmp and any, and allows no port for every protocol", () => {
      expect(
        problems(
          s.SecurityGroupRequestSchema,
          group([{ action: "DROP", proto: "icmp", dport: "22" }]),
        ),
      ).toEqual(["rules[0].dport: must be left out for proto icmp"]);
      for (const proto of s.RULE_PROTOCOLS) {
        expect(
          problems(s.SecurityGroupRequestSchema, group([{ action: "DROP", proto }])),
          proto,
        ).toEqual([]);
      }
    });

    it("accepts IPv4 and IPv6 CIDRs as source only", () => {
      for (const source of ["10.0.0.0/8", "0.0.0.0/0", "::/0", "2001:db8::/32"]) {
        expect(
          problems(
            s.SecurityGroupRequestSchema,
            group([{ action: "ACCEPT", proto: "any", source }]),
          ),
          source,
        ).toEqual([]);
      }
      for (const source of ["10.0.0.1", "10.0.0.0/33", "example.com", "2001:db8::/129"]) {
        expect(
          fieldsAtFault(
            s.SecurityGroupRequestSchema,
            group([{ action: "ACCEPT", proto: "any", source }]),
          ),
          source,
        ).toEqual(["rules[0].source"]);
      }
    });

    it("names the rule at fault by index, and unknown rule keys", () => {
      const rules = [
        { action: "ACCEPT", proto: "tcp", dport: "22" },
        { action: "ALLOW", proto: "tcp", port: "80" },
      ];
      expect(problems(s.SecurityGroupRequestSchema, group(rules))).toEqual([
        'rules[1].action: expected one of "ACCEPT", "DROP"',
        "rules[1].port: unknown field",
      ]);
    });
  });

  describe("keys", () => {
    const publicKey = fx.key.public_key;

    it("needs a public key to import, and refuses one when generating", () => {
      expect(problems(s.CreateKeyRequestSchema, { name: "laptop", type: "import" })).toEqual([
        "public_key: is required",
      ]);
      expect(
        problems(s.CreateKeyRequestSchema, {
          name: "laptop",
          type: "import",
          public_key: publicKey,
        }),
      ).toEqual([]);
      expect(problems(s.CreateKeyRequestSchema, { name: "ci", type: "generate" })).toEqual([]);
      expect(
        problems(s.CreateKeyRequestSchema, { name: "ci", type: "generate", public_key: publicKey }),
      ).toEqual(["public_key: unknown field"]);
    });

    it("refuses text that is not an OpenSSH public key", () => {
      for (const text of ["hello", "ssh-dss AAAAB3Nza", "-----BEGIN PUBLIC KEY-----"]) {
        expect(
          fieldsAtFault(s.CreateKeyRequestSchema, { name: "k", type: "import", public_key: text }),
          text,
        ).toEqual(["public_key"]);
      }
    });
  });

  it("accepts the three ticket statuses only", () => {
    for (const status of ["open", "answered", "closed"]) {
      expect(problems(s.UpdateTicketRequestSchema, { status })).toEqual([]);
    }
    expect(fieldsAtFault(s.UpdateTicketRequestSchema, { status: "pending" })).toEqual(["status"]);
  });

  it("checks roles' permission ids and the firewall switch", () => {
    expect(problems(s.CreateRoleRequestSchema, { name: "ops", permission_ids: [1, 2] })).toEqual(
      [],
    );
    expect(problems(s.CreateRoleRequestSchema, { name: "ops" })).toEqual([
      "permission_ids: is required",
    ]);
    expect(problems(s.UpdateServerFirewallRequestSchema, { firewall_enabled: "yes" })).toEqual([
      "firewall_enabled: expected a boolean",
    ]);
  });
});

describe("paging query", () => {
  it("defaults to page 1 of 20 and reads query-string text", () => {
    expect(s.PageQuerySchema.parse({})).toEqual({ page: 1, limit: 20 });
    expect(s.PageQuerySchema.parse({ page: "3", limit: "100" })).toEqual({ page: 3, limit: 100 });
  });

  it("refuses pages below 1 and limits outside 1..100", () => {
    expect(fieldsAtFault(s.PageQuerySchema, { page: 0 })).toEqual(["page"]);
    expect(fieldsAtFault(s.PageQuerySchema, { limit: 101 })).toEqual(["limit"]);
    expect(fieldsAtFault(s.PageQuerySchema, { limit: 0 })).toEqual(["limit"]);
    expect(fieldsAtFault(s.PageQuerySchema, { page: "two" })).toEqual(["page"]);
    expect(fieldsAtFault(s.PageQuerySchema, { page: 1.5 })).toEqual(["page"]);
  });
});
