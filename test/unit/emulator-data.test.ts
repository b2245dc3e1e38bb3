import { describe, expect, it } from "vitest";
import worldCountries from "world-countries";
import { PERMISSION_NAMES } from "../../src/api/schemas/iam";
import {
  BLOG_POSTS,
  COUNTRIES,
  DEFAULT_IMAGE,
  EU_MEMBER_STATES,
  findBlogPost,
  findCountry,
  findPlan,
  IMAGES,
  isKnownImage,
  PERMISSIONS,
  PLANS,
  permissionById,
  permissionByName,
  planValue,
  VAT_RATES_AS_OF,
  vatRateFor,
} from "../../src/emulator/data";
import { priceToCents } from "../../src/lib/money";

/**
 * Standard VAT rates of the EU member states in force on 1 January 2026, as published by the
 * European Commission ("VAT rates applied in the Member States of the European Union").
 */
const PUBLISHED_EU_VAT: Record<string, number> = {
  AT: 20,
  BE: 21,
  BG: 20,
  CY: 19,
  CZ: 21,
  DE: 19,
  DK: 25,
  EE: 24,
  ES: 21,
  FI: 25.5,
  FR: 20,
  GR: 24,
  HR: 25,
  HU: 27,
  IE: 23,
  IT: 22,
  LT: 21,
  LU: 17,
  LV: 21,
  MT: 18,
  NL: 21,
  PL: 23,
  PT: 23,
  RO: 21,
  SE: 25,
  SI: 22,
  SK: 23,
};

function country(isoA2: string) {
  const found = COUNTRIES.find((c) => c.iso_a2 === isoA2);
  if (found === undefined) throw new Error(`no country ${isoA2}`);
  return found;
}

describe("countries", () => {
  it("lists every country of world-countries exactly once", () => {
    expect(COUNTRIES).toHaveLength(worldCountries.length);
    expect(new Set(COUNTRIES.map((c) => c.iso_a2)).size).toBe(worldCountries.length);
    expect(new Set(COUNTRIES.map((c) => c.iso_a3)).size).toBe(worldCountries.length);
    expect(COUNTRIES.length).toBeGreaterThan(240);
  });

  it("has well-formed ISO codes and calling codes", () => {
    for (const c of COUNTRIES) {
      expect(c.iso_a2).toMatch(/^[A-Z]{2}$/);
      expect(c.iso_a3).toMatch(/^[A-Z]{3}$/);
      expect(Number.isInteger(c.iso_num)).toBe(true);
      if (c.iso_a2 !== "XK") expect(c.iso_num).toBeGreaterThan(0);
      expect(c.iso_num).toBeLessThan(1000);
      if (c.iso_a2 !== "HM") {
        expect(Number.isInteger(c.calling_code), c.iso_a2).toBe(true);
        expect(c.calling_code).toBeGreaterThan(0);
        // E.164 country codes have one to three digits; more means an area code slipped in.
        expect(c.calling_code, c.iso_a2).toBeLessThan(1000);
      }
    }
  });

  it.each([
    // [alpha-2, alpha-3, numeric] from ISO 3166-1.
    ["DE", "DEU", 276],
    ["US", "USA", 840],
    ["CA", "CAN", 124],
    ["GB", "GBR", 826],
    ["FR", "FRA", 250],
    ["JP", "JPN", 392],
    ["IN", "IND", 356],
    ["BR", "BRA", 76],
    ["AT", "AUT", 40],
    ["FI", "FIN", 246],
    ["RU", "RUS", 643],
    ["KZ", "KAZ", 398],
    ["PR", "PRI", 630],
    ["SH", "SHN", 654],
    ["VA", "VAT", 336],
    ["EH", "ESH", 732],
  ])("knows %s as %s / %i", (a2, a3, num) => {
    expect(country(a2)).toMatchObject({ iso_a3: a3, iso_num: num });
  });

  it.each([
    // [alpha-2, country code] from ITU-T E.164 (list of assigned country codes).
    ["US", 1],
    ["CA", 1],
    ["JM", 1],
    ["PR", 1],
    ["DE", 49],
    ["GB", 44],
    ["GG", 44],
    ["IM", 44],
    ["JE", 44],
    ["FR", 33],
    ["RU", 7],
    ["KZ", 7],
    ["FI", 358],
    ["AX", 358],
    ["IT", 39],
    ["VA", 39],
    ["NO", 47],
    ["SJ", 47],
    ["IE", 353],
    ["PT", 351],
    ["AT", 43],
    ["CH", 41],
    ["NL", 31],
    ["GR", 30],
    ["TR", 90],
    ["AU", 61],
    ["CX", 61],
    ["NZ", 64],
    ["JP", 81],
    ["CN", 86],
    ["HK", 852],
    ["KP", 850],
    ["IN", 91],
    ["IL", 972],
    ["AE", 971],
    ["BR", 55],
    ["MX", 52],
    ["AR", 54],
    ["ZA", 27],
    ["EG", 20],
    ["NG", 234],
    ["MA", 212],
    ["EH", 212],
    ["SH", 290],
    ["GL", 299],
    ["RE", 262],
    ["CW", 599],
    ["AQ", 672],
    ["XK", 383],
  ])("dials %s as +%i", (a2, code) => {
    expect(country(a2).calling_code).toBe(code);
  });

  it("gives every member of the North American Numbering Plan +1, not its area code", () => {
    // The 25 NANP members (NANPA): the US, five US territories, Canada, 18 Caribbean and Atlantic.
    const nanp = ["US", "CA", "AS", "GU", "MP", "PR", "VI", "AG", "AI", "BB", "BM", "BS", "DM"];
    nanp.push("DO", "GD", "JM", "KN", "KY", "LC", "MS", "SX", "TC", "TT", "VC", "VG");
    expect(nanp).toHaveLength(25);
    for (const a2 of nanp) expect(country(a2).calling_code, a2).toBe(1);
  });

  it("handles entries without data: Kosovo has no ISO numeric code, Heard Island no phones", () => {
    expect(country("XK")).toMatchObject({ name: "Kosovo", iso_num: 0, calling_code: 383 });
    expect(country("HM").calling_code).toBeNull();
  });

  it("is sorted by name for people, not by code", () => {
    const names = COUNTRIES.map((c) => c.name);
    expect(names.indexOf("Afghanistan")).toBe(0);
    expect(names.indexOf("Germany")).toBeLessThan(names.indexOf("Ghana"));
    expect(names.indexOf("Zimbabwe")).toBe(names.length - 1);
  });

  it("finds a country by alpha-2, alpha-3 or name, case-insensitively", () => {
    expect(findCountry("de")?.name).toBe("Germany");
    expect(findCountry("DEU")?.name).toBe("Germany");
    expect(findCountry(" germany ")?.iso_a2).toBe("DE");
    expect(findCountry("Atlantis")).toBeUndefined();
    expect(findCountry("")).toBeUndefined();
  });
});

describe("VAT rates", () => {
  it("names the date the rates are valid for", () => {
    expect(VAT_RATES_AS_OF).toMatch(/^202[5-6]-\d{2}-\d{2}$/);
  });

  it("covers exactly the 27 EU member states", () => {
    expect([...EU_MEMBER_STATES].sort()).toEqual(Object.keys(PUBLISHED_EU_VAT).sort());
  });

  it.each(Object.entries(PUBLISHED_EU_VAT))(
    "charges the published standard rate in %s (%s %%)",
    (isoA2, rate) => {
      expect(vatRateFor(isoA2)).toBe(rate);
      expect(country(isoA2).vat).toBe(rate);
    },
  );

  it.each([
    ["GB", 20],
    ["NO", 25],
    ["CH", 8.1],
    ["IS", 24],
    ["US", 0],
    ["CA", 5],
    ["AU", 10],
    ["NZ", 15],
    ["JP", 10],
    ["IN", 18],
    ["SG", 9],
  ])("charges the standard rate outside the EU: %s %s %%", (isoA2, rate) => {
    expect(country(isoA2).vat).toBe(rate);
  });

  it("charges 0 where the table has no rate, rather than guessing", () => {
    expect(vatRateFor("AF")).toBe(0);
    expect(vatRateFor("ZZ")).toBe(0);
    expect(vatRateFor("de")).toBe(19);
  });

  it("keeps every rate a plausible percentage", () => {
    for (const c of COUNTRIES) {
      expect(c.vat).toBeGreaterThanOrEqual(0);
      expect(c.vat).toBeLessThanOrEqual(30);
    }
  });
});

describe("plans", () => {
  it("offers about ten plans of both spec types with unique ids and names", () => {
    expect(PLANS.length).toBeGreaterThanOrEqual(8);
    expect(new Set(PLANS.map((p) => p.type))).toEqual(new Set(["VPS", "Dedicated Server"]));
    expect(new Set(PLANS.map((p) => p.id)).size).toBe(PLANS.length);
    expect(new Set(PLANS.map((p) => p.name)).size).toBe(PLANS.length);
    expect(findPlan(2)?.name).toBe("VPS S");
    expect(findPlan(999)).toBeUndefined();
  });

  it("has prices that are whole cents and billable", () => {
    for (const plan of PLANS) {
      expect(plan.price).toBeGreaterThan(0);
      expect(() => priceToCents(plan.price)).not.toThrow();
    }
  });

  it("describes the hardware of every plan in numeric data entries", () => {
    for (const plan of PLANS) {
      for (const key of ["cpu", "ram_gb", "disk_gb"]) {
        expect(Number(planValue(plan, key)), `${plan.name} ${key}`).toBeGreaterThan(0);
      }
      expect(planValue(plan, "traffic_tb"), plan.name).toMatch(/^(\d+|unlimited)$/);
      expect(new Set(plan.data.map((d) => d.name)).size).toBe(plan.data.length);
    }
  });

  it("never sells more of everything for less money within a type", () => {
    for (const a of PLANS) {
      for (const b of PLANS) {
        if (a.type !== b.type || a.price >= b.price) continue;
        const more = (key: string) => Number(planValue(a, key)) > Number(planValue(b, key));
        const dominates = more("cpu") && more("ram_gb") && more("disk_gb");
        expect(dominates, `${a.name} is cheaper than ${b.name} but bigger`).toBe(false);
      }
    }
  });
});

describe("images", () => {
  it("offers current Linux and Windows images with unique, URL-safe names", () => {
    const names = IMAGES.map((i) => i.name);
    expect(names.length).toBeGreaterThanOrEqual(10);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9.-]*$/);
    for (const name of ["ubuntu-24.04", "debian-12", "rocky-9", "windows-server-2022"]) {
      expect(isKnownImage(name)).toBe(true);
    }
    expect(isKnownImage(DEFAULT_IMAGE)).toBe(true);
    expect(isKnownImage("ubuntu-4.10")).toBe(false);
  });
});

describe("permissions", () => {
  it("is the resource:action catalogue of design.md, with stable ids", () => {
    const resources = [
      "servers",
      "tags",
      "firewall",
      "keys",
      "iam",
      "billing",
      "tickets",
      "account",
    ];
    const expected = resources.flatMap((r) => [`${r}:read`, `${r}:write`]);
    expect(PERMISSIONS.map((p) => p.name)).toEqual(expected);
    expect(PERMISSIONS.map((p) => p.id)).toEqual(expected.map((_, i) => i + 1));
    for (const p of PERMISSIONS) expect(p.description.length).toBeGreaterThan(10);
  });

  it("lists exactly the names the api layer publishes, and finds each by id and by name", () => {
    expect(PERMISSIONS.map((p) => p.name)).toEqual([...PERMISSION_NAMES]);
    for (const p of PERMISSIONS) {
      expect(permissionById(p.id)).toEqual(p);
      expect(permissionByName(p.name)).toEqual(p);
    }
    expect(permissionById(0)).toBeUndefined();
  });
});

describe("blog posts", () => {
  it("has about eight posts, some featured and some not, with unique ids and short names", () => {
    expect(BLOG_POSTS.length).toBeGreaterThanOrEqual(8);
    expect(new Set(BLOG_POSTS.map((p) => p.id)).size).toBe(BLOG_POSTS.length);
    expect(new Set(BLOG_POSTS.map((p) => p.short_name)).size).toBe(BLOG_POSTS.length);
    const featured = BLOG_POSTS.filter((p) => p.featured).length;
    expect(featured).toBeGreaterThan(0);
    expect(featured).toBeLessThan(BLOG_POSTS.length);
  });

  it("links each post at its short name", () => {
    for (const post of BLOG_POSTS) {
      expect(post.short_name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(post.href).toBe(`/blog/${post.short_name}`);
      expect(findBlogPost(post.short_name)).toBe(post);
      expect(post.category_href).toMatch(/^\/blog\/category\/[a-z0-9-]+$/);
      expect(post.author_href).toMatch(/^\/blog\/author\/[a-z0-9-]+$/);
      for (const url of [post.image_url, post.author_image_url]) {
        expect(new URL(url).hostname.endsWith(".example")).toBe(true);
      }
    }
    expect(findBlogPost("no-such-post")).toBeUndefined();
  });

  it("shows a display date that matches the timestamp, and is newest first", () => {
    const finnish = findBlogPost("finland-vat-change");
    expect(finnish?.datetime).toBe("2024-08-20T09:00:00Z");
    expect(finnish?.date).toBe("August 20, 2024");
    for (const post of BLOG_POSTS) {
      const published = new Date(post.datetime);
      expect(post.datetime).toBe(published.toISOString().replace(".000Z", "Z"));
      const [month, day, year] = post.date.replace(",", "").split(" ");
      expect(Number(year)).toBe(published.getUTCFullYear());
      expect(Number(day)).toBe(published.getUTCDate());
      expect(month).toBe(published.toLocaleString("en-US", { month: "long", timeZone: "UTC" }));
      expect(Date.parse(post.updated_at)).toBeGreaterThanOrEqual(Date.parse(post.created_at));
    }
    const times = BLOG_POSTS.map((p) => Date.parse(p.datetime));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("has HTML content and a reading time plausible for its length", () => {
    for (const post of BLOG_POSTS) {
      expect(post.content.startsWith("<p>")).toBe(true);
      expect(post.title.length).toBeGreaterThan(0);
      expect(post.description.length).toBeGreaterThan(0);
      expect(post.reading_time).toMatch(/^\d+ min$/);
      // People read 100 to 400 words a minute; a shown time outside that range looks broken.
      const words = post.content
        .replace(/<[^>]+>/g, " ")
        .split(/\s+/)
        .filter(Boolean).length;
      const minutes = Number.parseInt(post.reading_time, 10);
      expect(minutes).toBeGreaterThanOrEqual(Math.floor(words / 400));
      expect(minutes).toBeLessThanOrEqual(Math.ceil(words / 100));
    }
  });
});
