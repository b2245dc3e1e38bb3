/**
 * Blog posts served by `GET /v1/blog/posts`. Links, display dates and reading times are derived
 * from each post's short name, timestamp and content, so they can never disagree with them.
 */

/** A blog post as the API returns it (spec: BlogPost). */
export interface BlogPostRecord {
  /** Post id. */
  id: number;
  /** URL-friendly short name. */
  short_name: string;
  /** Title. */
  title: string;
  /** Short description. */
  description: string;
  /** Full content, HTML. */
  content: string;
  /** Relative URL of the post. */
  href: string;
  /** Cover image URL. */
  image_url: string;
  /** Featured flag. */
  featured: boolean;
  /** Publication date, display form (`March 4, 2025`). */
  date: string;
  /** Publication timestamp, RFC 3339. */
  datetime: string;
  /** Estimated reading time text (`3 min`). */
  reading_time: string;
  /** Category name. */
  category_name: string;
  /** Category URL. */
  category_href: string;
  /** Author name. */
  author_name: string;
  /** Author page URL. */
  author_href: string;
  /** Author image URL. */
  author_image_url: string;
  /** Creation timestamp. */
  created_at: string;
  /** Last update timestamp. */
  updated_at: string;
}

/** Reserved example domain (RFC 2606): the emulator must never point at a real site. */
const ASSETS = "https://static.cloudinfra.example";

/** Typical adult silent-reading speed for technical prose. */
const WORDS_PER_MINUTE = 200;

const AUTHORS = {
  mara: { name: "Mara Lindqvist", slug: "mara-lindqvist" },
  tobias: { name: "Tobias Okafor", slug: "tobias-okafor" },
  ines: { name: "Inês Carvalho", slug: "ines-carvalho" },
} as const;

const CATEGORIES = {
  product: "Product updates",
  guides: "Guides",
  security: "Security",
  engineering: "Engineering",
} as const;

interface PostSource {
  short_name: string;
  title: string;
  description: string;
  paragraphs: string[];
  featured: boolean;
  published: string;
  updated?: string;
  category: keyof typeof CATEGORIES;
  author: keyof typeof AUTHORS;
}

const SOURCES: readonly PostSource[] = [
  {
    short_name: "introducing-dedicated-gpu-servers",
    title: "Introducing dedicated GPU servers",
    description: "NVIDIA L4 machines for inference, billed monthly like every other plan.",
    featured: true,
    published: "2025-11-18T09:00:00Z",
    category: "product",
    author: "mara",
    paragraphs: [
      "Today we are adding a new plan to the catalogue: Dedicated GPU, a 16-core AMD EPYC server with 128 GB of ECC memory and an NVIDIA L4 card with 24 GB of video memory.",
      "The L4 is built for inference rather than training. It draws 72 watts, fits in a single slot and handles speech recognition, image generation and mid-sized language models comfortably. For most teams that run models in production, it is the right size.",
      "GPU servers are ordered, tagged, firewalled and billed exactly like the rest of the fleet. The plan appears in the API and in the Pulumi provider's getPlans data source, so existing programs only need a new plan id.",
      "Drivers and the CUDA toolkit are preinstalled on the ubuntu-24.04 image. Other images boot without them, and you can install the drivers yourself.",
    ],
  },
  {
    short_name: "infrastructure-as-code-with-pulumi",
    title: "Managing servers as code with Pulumi",
    description: "Declare servers, keys, tags and firewalls in TypeScript and let Pulumi converge.",
    featured: true,
    published: "2025-09-02T08:30:00Z",
    updated: "2025-10-14T12:00:00Z",
    category: "guides",
    author: "tobias",
    paragraphs: [
      "Clicking through a control panel works for one server. It stops working at ten, and it never tells you what changed or who changed it. Infrastructure as code fixes both problems: the program is the inventory, and version control is the audit log.",
      "The pulumi-cloudinfra package exposes every part of the platform as a Pulumi resource. A server takes a plan id, an image name and a list of SSH key ids; a security group takes a list of rules; a tag takes a colour and the servers it marks.",
      "Run pulumi preview to see what would change, and pulumi up to apply it. Pulumi waits for new servers to reach the running state, and it removes servers you deleted from the program.",
      "For local development, start the bundled emulator. It serves the whole API over HTTPS on your machine, so you can try a change without spending money or touching production.",
    ],
  },
  {
    short_name: "ed25519-keys-by-default",
    title: "Ed25519 keys by default, and goodbye to short RSA keys",
    description: "Generated keys are now Ed25519; RSA keys shorter than 2048 bits are refused.",
    featured: false,
    published: "2025-06-10T07:00:00Z",
    category: "security",
    author: "ines",
    paragraphs: [
      "When you ask the API to generate a key pair, you now receive an Ed25519 key. Ed25519 keys are short, fast to verify and immune to the weak-randomness failures that have affected ECDSA signatures.",
      "Imported keys may still be RSA or ECDSA, but RSA keys must have at least 2048 bits. DSA keys are refused: OpenSSH itself disabled them years ago.",
      "Fingerprints are shown in the SHA256 form that ssh-keygen -l prints, so you can compare the key on your laptop with the key on your server without converting anything.",
    ],
  },
  {
    short_name: "security-groups-explained",
    title: "Security groups explained",
    description: "How rules, groups and the per-server firewall switch fit together.",
    featured: false,
    published: "2025-04-22T10:15:00Z",
    category: "guides",
    author: "tobias",
    paragraphs: [
      "A security group is a named list of firewall rules. Each rule accepts or drops traffic by protocol, destination port or port range, and source network.",
      "Groups are attached to servers, and a server can carry several groups. The server's firewall switch decides whether the attached rules are enforced at all, so you can open a server temporarily during an incident without detaching its groups.",
      "Keep groups small and name them after their purpose, such as ssh-from-office or web-public, so that the list of groups on a server reads like a description of what it does.",
    ],
  },
  {
    short_name: "finland-vat-change",
    title: "Finnish VAT rises to 25.5 %",
    description: "Invoices for Finnish accounts use the new standard rate from September 2024.",
    featured: false,
    published: "2024-08-20T09:00:00Z",
    category: "product",
    author: "mara",
    paragraphs: [
      "Finland raises its standard VAT rate from 24 % to 25.5 % on 1 September 2024. Invoices issued to accounts in Finland from that date use the new rate.",
      "Because the rate has a fractional part, VAT amounts are computed in whole cents and rounded half-up, once per invoice. The country catalogue in the API already shows the new rate.",
    ],
  },
  {
    short_name: "status-transitions-and-actions",
    title: "Server states, actions and why your reboot returns an id",
    description: "Management actions are asynchronous; here is how to wait for them properly.",
    featured: true,
    published: "2024-06-05T13:45:00Z",
    category: "engineering",
    author: "ines",
    paragraphs: [
      "Starting, stopping, rebooting and deleting a server take seconds to minutes. The management endpoint therefore answers at once with an action id, and the server's status tells you how far the action has come.",
      "A stop moves a server from running to stopping and then to stopped; a start goes through starting back to running. A reboot passes through rebooting. A delete ends with the server gone.",
      "Poll the server, not the action, and give up with a clear message when the status lands somewhere the action cannot lead, such as error.",
    ],
  },
  {
    short_name: "new-region-helsinki",
    title: "More capacity in Helsinki",
    description: "A second hall in our Helsinki data centre doubles dedicated-server stock.",
    featured: false,
    published: "2024-03-12T08:00:00Z",
    category: "product",
    author: "mara",
    paragraphs: [
      "Our Helsinki site has opened its second data hall. It runs on hydro and wind power and reuses its waste heat in the city's district heating network.",
      "The new hall doubles the stock of dedicated servers, so Dedicated Entry and Dedicated Pro machines are again delivered within minutes rather than days.",
    ],
  },
  {
    short_name: "api-keys-least-privilege",
    title: "API keys with least privilege",
    description:
      "Give every automation its own user, role and key, with only the permissions it needs.",
    featured: false,
    published: "2024-01-16T11:30:00Z",
    category: "security",
    author: "tobias",
    paragraphs: [
      "Every API key belongs to a user, and every user has a role. A role is a list of permissions such as servers:read or firewall:write.",
      "Create one API user per automation: your CI pipeline, your monitoring, your Pulumi stack. A monitoring job needs servers:read and nothing else; if its key leaks, nobody can delete anything with it.",
      "The key is shown once, when the user is created. Store it in your secret manager or as a Pulumi secret, never in the repository.",
    ],
  },
];

const displayDate = new Intl.DateTimeFormat("en-US", {
  year: "numeric",
  month: "long",
  day: "numeric",
  timeZone: "UTC",
});

function toHtml(paragraphs: readonly string[]): string {
  const escapeHtml = (text: string) =>
    text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join("\n");
}

function readingTime(paragraphs: readonly string[]): string {
  const words = paragraphs.join(" ").split(/\s+/).filter(Boolean).length;
  return `${Math.max(1, Math.ceil(words / WORDS_PER_MINUTE))} min`;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** All posts, newest first; ids count up from the oldest. */
export const BLOG_POSTS: readonly BlogPostRecord[] = SOURCES.map((source, index) => {
  const author = AUTHORS[source.author];
  const category = CATEGORIES[source.category];
  return {
    id: SOURCES.length - index,
    short_name: source.short_name,
    title: source.title,
    description: source.description,
    content: toHtml(source.paragraphs),
    href: `/blog/${source.short_name}`,
    image_url: `${ASSETS}/blog/${source.short_name}.jpg`,
    featured: source.featured,
    date: displayDate.format(new Date(source.published)),
    datetime: source.published,
    reading_time: readingTime(source.paragraphs),
    category_name: category,
    category_href: `/blog/category/${slug(category)}`,
    author_name: author.name,
    author_href: `/blog/author/${author.slug}`,
    author_image_url: `${ASSETS}/authors/${author.slug}.jpg`,
    created_at: source.published,
    updated_at: source.updated ?? source.published,
  };
});

/** The post with this short name, if any. */
export function findBlogPost(shortName: string): BlogPostRecord | undefined {
  return BLOG_POSTS.find((post) => post.short_name === shortName);
}
