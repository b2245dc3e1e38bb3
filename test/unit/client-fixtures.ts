/**
 * One valid wire object per response shape, written the way the service sends them (snake_case,
 * decimal strings, RFC 3339 times). They are canonical: parsing returns them unchanged, so tests
 * can compare what a method returns with what was sent.
 */
const T0 = "2024-05-01T12:00:00Z";
const T1 = "2024-05-02T08:30:00.250Z";

export const plan = {
  id: 3,
  name: "vps-small",
  description: "2 vCPU, 4 GB",
  price: 9.5,
  type: "VPS",
  data: [
    { name: "cpu", val: "2" },
    { name: "ram", val: "4096" },
  ],
};

const nestedServer = {
  id: 11,
  unique_id: 900011,
  created_at: T0,
  updated_at: T1,
  ip: "203.0.113.10",
  user_id: 1,
  account_id: 1,
  vm_id: 5011,
  firewall_enabled: true,
  data: [{ name: "os", value: "debian-12" }],
  plan,
  plan_id: 3,
  order_id: 7,
  status: "running",
  status_date: T1,
  user_defined_name: "web-1",
};

export const rule = { id: 1, action: "ACCEPT", proto: "tcp", dport: "22", source: "10.0.0.0/8" };

const nestedTag = {
  id: 21,
  name: "prod",
  color: "#FF8800",
  data: "env:prod",
  account_id: 1,
  created_by_user: 1,
};

const nestedGroup = {
  id: 31,
  name: "ssh",
  description: "SSH from the office",
  account_id: 1,
  created_by_user: 1,
  created_at: T0,
  updated_at: T1,
  rules: [rule],
};

export const server = { ...nestedServer, security_groups: [nestedGroup], tags: [nestedTag] };
export const tag = { ...nestedTag, servers: [nestedServer] };
export const securityGroup = { ...nestedGroup, servers: [nestedServer] };

export const genericOk = { success: true, message: "done" };

export const metrics = {
  timestamps: [T0, T1],
  cpu_usage_percent: [12.5, 40],
  mem_used_mb: [512, 900],
  mem_total_mb: 4096,
  net_in_kbps: [10, 20],
  net_out_kbps: [5, 8],
  disk_read_kbps: [0, 100],
  disk_write_kbps: [3, 4],
};

export const managementResponse = { action_id: "6f1c2a9e-3b7d-4c8e-9f10-2a3b4c5d6e7f" };

export const permission = { id: 1, name: "servers:read", description: "Read servers" };

export const role = {
  id: 41,
  account_id: 1,
  name: "operators",
  description: "Runs servers",
  system_role: false,
  role_permissions: [{ id: 1, role_id: 41, permission_id: 1, permission }],
  created_by: 1,
  created_by_name: "Ada",
  created_by_email: "ada@example.com",
  created_at: T0,
  updated_at: T1,
};

export const createUserResponse = { user_id: 51, api_key: "ck_live_abc123" };

export const user = {
  id: 1,
  name: "Ada",
  last_name: "Lovelace",
  email: "ada@example.com",
  type: "human",
  external: false,
  sys: false,
  created_at: T0,
  updated_at: T1,
};

export const account = {
  id: 1,
  name: "Ada Lovelace",
  company: "Analytical Engines Ltd",
  address: "1 Babbage Street",
  city: "London",
  state: "Greater London",
  postal_code: "EC1A 1AA",
  country: "GB",
  phone: "+44 20 7946 0000",
  tax_id: "GB123456789",
  verified: true,
  auto_pay: false,
  credits: 100,
  created_at: T0,
  updated_at: T1,
};

export const introspect = {
  user,
  account,
  memberships: [
    { account_id: 1, account_name: "Ada Lovelace", role_id: 41, role_name: "operators" },
  ],
};

export const order = {
  id: 7,
  unique_id: "ord_7f3a",
  user_id: 1,
  account_id: 1,
  order_plans: [{ id: 1, order_id: 7, plan_id: 3, quantity: 1 }],
  created_at: T0,
  updated_at: T1,
};

export const invoice = {
  id: 61,
  unique_id: "inv_61",
  invoice_number: "2024-0005",
  account_id: 1,
  billing_month: "2024-05-01T00:00:00Z",
  from_date: "2024-05-01T00:00:00Z",
  to_date: "2024-05-31T23:59:59Z",
  due_date: "2024-06-14T00:00:00Z",
  subtotal_amount: "9.50",
  discount: "0.00",
  vat_amount: "1.81",
  total_amount: "11.31",
  outstanding_amount: "11.31",
  paid: false,
  paid_at: null,
  payment_ref_id: null,
  tax_id: "GB123456789",
  invoice_items: [{ id: 1, plan_id: 3, amount: "9.50", billing_for: "web-1, May 2024" }],
  created_at: T0,
  updated_at: T1,
};

export const invoicePayment = {
  paid: true,
  payment_ref: "pay_123",
  message: "paid",
  outstanding: "0.00",
};

export const paymentMethod = {
  id: "pm_1",
  brand: "visa",
  last4: "4242",
  exp: "12/29",
  default: true,
};

export const attachment = {
  id: 1,
  filename: "log.txt",
  content_type: "text/plain",
  size: 12,
  url: "/v1/tickets/71/files/1",
  created_at: T0,
};

export const reply = {
  id: 81,
  ticket_id: 71,
  user_id: 1,
  user,
  account_id: 1,
  content: "Any news?",
  files: [attachment],
  created_at: T1,
};

export const ticket = {
  id: 71,
  case_id: "CASE-0071",
  account_id: 1,
  user_id: 1,
  subject: "Server unreachable",
  content: "web-1 does not answer on port 22",
  status: "open",
  files: [attachment],
  replies: [reply],
  created_at: T0,
  updated_at: T1,
};

export const key = {
  id: 91,
  name: "laptop",
  public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGk3 ada@laptop",
  fingerprint: "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
  user_id: 1,
  account_id: 1,
  created_at: T0,
  updated_at: T1,
};

export const keyEnvelope = {
  success: true,
  key,
  private_key: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n",
};

export function blogPost(id: number, featured = false) {
  return {
    id,
    short_name: `post-${id}`,
    title: `Post ${id}`,
    description: "What is new",
    content: "<p>Hello</p>",
    href: `/blog/post-${id}`,
    image_url: "https://example.com/cover.png",
    featured,
    date: "May 1, 2024",
    datetime: T0,
    reading_time: "5 min",
    category_name: "News",
    category_href: "/blog/news",
    author_name: "Ada",
    author_href: "/authors/ada",
    author_image_url: "https://example.com/ada.png",
    created_at: T0,
    updated_at: T1,
  };
}

export function securityGroupsPage(page: number, limit: number, totalCount: number, ids: number[]) {
  return {
    data: ids.map((id) => ({ ...securityGroup, id, name: `group-${id}` })),
    page,
    limit,
    total_count: totalCount,
    total_pages: Math.ceil(totalCount / limit),
  };
}

export function blogPostsPage(page: number, limit: number, totalCount: number, ids: number[]) {
  return {
    posts: ids.map((id) => blogPost(id)),
    featured_posts: [blogPost(1000, true)],
    page,
    limit,
    total_count: totalCount,
    total_pages: Math.ceil(totalCount / limit),
  };
}

export const country = {
  name: "Germany",
  vat: 19,
  calling_code: 49,
  iso_a2: "DE",
  iso_a3: "DEU",
  iso_num: 276,
};

export const image = { name: "debian-12" };
