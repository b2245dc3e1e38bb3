import { X509Certificate } from "node:crypto";
import forge from "node-forge";
import { describe, expect, it } from "vitest";
import { serialNumber } from "../../src/emulator/http/tls";

describe("emulator certificate serial numbers", () => {
  it("are positive, minimally encoded DER integers that OpenSSL accepts, every time", () => {
    const keys = forge.pki.rsa.generateKeyPair({ bits: 512, e: 0x10001 });
    for (let i = 0; i < 2000; i++) {
      const serial = serialNumber();
      expect(serial).toMatch(/^(?:0[1-9a-f]|[1-7][0-9a-f])[0-9a-f]{30}$/);
      if (i % 100 !== 0) continue;
      const cert = forge.pki.createCertificate();
      cert.publicKey = keys.publicKey;
      cert.serialNumber = serial;
      cert.validity.notBefore = new Date(0);
      cert.validity.notAfter = new Date(Date.now() + 86_400_000);
      cert.setSubject([{ name: "commonName", value: "serial" }]);
      cert.setIssuer([{ name: "commonName", value: "serial" }]);
      cert.sign(keys.privateKey);
      const parsed = new X509Certificate(forge.pki.certificateToPem(cert));
      expect(parsed.serialNumber.toLowerCase().replace(/^0+/, "")).toBe(serial.replace(/^0+/, ""));
    }
  });
});
