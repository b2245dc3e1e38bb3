/** CIDR blocks in one spelling: `10.0.0.0 / 8`, `2001:DB8::/32` never show as a change. Pure. */
export type CidrResult = { ok: true; cidr: string } | { ok: false; message: string };

const EXAMPLE = "for example 10.0.0.0/8 or 2001:db8::/32";

function parseIpv4(text: string): bigint | string {
  const parts = text.split(".");
  if (parts.length !== 4)
    return `expected four numbers separated by dots in ${JSON.stringify(text)}`;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) {
      return `${JSON.stringify(part)} is not a number from 0 to 255`;
    }
    // Some tools read a leading zero as octal: refuse the ambiguity instead of guessing.
    if (part.length > 1 && part.startsWith("0")) {
      return `${JSON.stringify(part)} has a leading zero; write it without`;
    }
    value = (value << 8n) | BigInt(Number(part));
  }
  return value;
}

function parseIpv6(text: string): bigint | string {
  let body = text.toLowerCase();
  // An IPv4 tail (`::ffff:10.0.0.1`) stands for the last two groups.
  const lastColon = body.lastIndexOf(":");
  const tail = body.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = parseIpv4(tail);
    if (typeof v4 === "string") return v4;
    body = `${body.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return `"::" may appear only once in ${JSON.stringify(text)}`;
  const [head = [], rest = []] = halves.map((half) => (half === "" ? [] : half.split(":")));
  const bad = [...head, ...rest].find((group) => !/^[0-9a-f]{1,4}$/.test(group));
  if (bad !== undefined) return `${JSON.stringify(bad)} is not a group of 1-4 hex digits`;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 && missing < 1) return `too many groups in ${JSON.stringify(text)}`;
  if (halves.length === 1 && missing !== 0) {
    return `expected eight groups (or "::") in ${JSON.stringify(text)}`;
  }
  const groups = [...head, ...new Array<string>(missing).fill("0"), ...rest];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(`0x${group}`), 0n);
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

/** RFC 5952: lower case, no leading zeros, the longest run of two or more zero groups as `::`. */
function formatIpv6(value: bigint): string {
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((s) =>
    Number((value >> s) & 0xffffn),
  );
  // Runs of two or more zeros only; of equal runs, the first.
  let [bestStart, bestLength, runStart] = [-1, 1, 0];
  groups.forEach((group, i) => {
    if (group !== 0) runStart = i + 1;
    else if (i + 1 - runStart > bestLength) [bestStart, bestLength] = [runStart, i + 1 - runStart];
  });
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

/**
 * A bare address is the block of that one address. A block with host bits set is refused with the
 * network it probably means: the service would refuse it or silently widen or narrow it.
 */
export function normaliseCidr(input: string): CidrResult {
  const text = input.replace(/\s+/g, "");
  if (text === "") return { ok: false, message: `expected a CIDR block, ${EXAMPLE}` };
  const slash = text.indexOf("/");
  const address = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? undefined : text.slice(slash + 1);
  const v6 = address.includes(":");
  const bits = v6 ? 128 : 32;
  const parsed = v6 ? parseIpv6(address) : parseIpv4(address);
  if (typeof parsed === "string") {
    return { ok: false, message: `expected a CIDR block, ${EXAMPLE}: ${parsed}` };
  }
  if (prefixText !== undefined && (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits)) {
    return {
      ok: false,
      message: `expected a prefix length from 0 to ${bits} after "/", got ${JSON.stringify(prefixText)}`,
    };
  }
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  const hostBits = BigInt(bits - prefix);
  const network = (parsed >> hostBits) << hostBits;
  const format = v6 ? formatIpv6 : formatIpv4;
  if (network !== parsed) {
    const single = `${format(parsed)}/${bits}`;
    return {
      ok: false,
      message: `${JSON.stringify(input)} has host bits set: the network is ${format(network)}/${prefix} (write that, or ${single} for the single address)`,
    };
  }
  return { ok: true, cidr: `${format(network)}/${prefix}` };
}
