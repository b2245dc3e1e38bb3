import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tlsMaterialInDir } from "../../src/emulator/http/tls";
import { tempDir } from "../support/temp-dir";

/**
 * The first byte of the next 16 random bytes (a certificate's serial) when set: the bytes whose
 * DER encoding went wrong before (0x00 asks for a leading zero, 0x80 and above read as negative).
 */
const forced = vi.hoisted(() => ({ firstByte: undefined as number | undefined }));

vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof import("node:crypto")>();
  const randomBytes = (size: number): Buffer => {
    const bytes = crypto.randomBytes(size);
    if (size === 16 && forced.firstByte !== undefined) bytes[0] = forced.firstByte;
    return bytes;
  };
  return { ...crypto, default: { ...crypto, randomBytes }, randomBytes };
});

const dir = tempDir("tls-serial-");

afterEach(() => {
  forced.firstByte = undefined;
});

describe("emulator certificate serial numbers", () => {
  it.each([0x00, 0x01, 0x7f, 0x80, 0xff])(
    "are positive, minimally encoded DER integers that OpenSSL accepts, whatever the first random byte (%i)",
    (firstByte) => {
      forced.firstByte = firstByte;
      // A new data dir each time: the emulator makes a CA and a server certificate there.
      const material = tlsMaterialInDir(join(dir, String(firstByte)));
      // OpenSSL refuses a certificate whose serial is not a minimal DER integer.
      const ca = new X509Certificate(material.caCert);
      const server = new X509Certificate(material.serverCert);
      expect(server.verify(ca.publicKey)).toBe(true);
      for (const cert of [ca, server]) {
        const serial = BigInt(`0x${cert.serialNumber}`);
        expect(serial).toBeGreaterThan(0n);
        expect(serial).toBeLessThan(2n ** 127n);
        // 16 bytes, the first 0x01..0x7f: never shorter than 15 bytes.
        expect(serial).toBeGreaterThanOrEqual(2n ** 120n);
      }
    },
  );
});
