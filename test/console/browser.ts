/**
 * A real headless Chromium for console tests: Debian's `chromium` (what .ci/run installs) or the
 * executable in CLOUDINFRA_CHROMIUM, driven by playwright-core. The emulator's certificate is
 * trusted by pinning its public key (`--ignore-certificate-errors-spki-list`), after Node has
 * verified it against the emulator's CA: every other certificate error still fails.
 */
import { createHash, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { type Browser, chromium } from "playwright-core";
import { ROOT } from "../support/programs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The browser to run, or why there is none. */
export function findChromium(): { path: string } | { missing: string } {
  const given = process.env["CLOUDINFRA_CHROMIUM"];
  if (given !== undefined && given !== "") {
    return existsSync(given)
      ? { path: given }
      : { missing: `CLOUDINFRA_CHROMIUM=${given} does not exist` };
  }
  const found = CANDIDATES.find((path) => existsSync(path));
  return found !== undefined
    ? { path: found }
    : {
        missing: `no Chromium at ${CANDIDATES.join(", ")} (install Debian's: apt-get install -y chromium, as .ci/run does; or set CLOUDINFRA_CHROMIUM)`,
      };
}

/** base64 sha256 of the SubjectPublicKeyInfo of the certificate `endpoint` presents, verified against `caCert`. */
export async function pinnedSpki(endpoint: string, caCert: string): Promise<string> {
  const { hostname, port } = new URL(endpoint);
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca: caCert }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert.raw);
    });
    socket.once("error", reject);
  });
  const spki = new X509Certificate(raw).publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(spki).digest("base64");
}

export async function launchChromium(executablePath: string, spki: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [`--ignore-certificate-errors-spki-list=${spki}`],
  });
}

/** Where screenshots go: .ci/out/console/ (gitignored; CI keeps .ci/out). */
export function screenshotDir(): string {
  const dir = join(ROOT, ".ci", "out", "console");
  mkdirSync(dir, { recursive: true });
  return dir;
}
