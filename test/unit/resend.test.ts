import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_SENDS, RESEND, sendLookResend } from "../../src/resources/create";

const lost = () => Promise.reject(new Error("answer lost"));

/** A send that always loses its answer, and how many times it was sent. */
function counted() {
  const counter = {
    sends: 0,
    send: () => {
      counter.sends++;
      return lost();
    },
  };
  return counter;
}

describe("sendLookResend (the one resend loop of creates and server actions)", () => {
  it("sends again only while the look proves the failed send did nothing", async () => {
    let sends = 0;
    const looks: string[] = [];
    const outcome = await sendLookResend({
      send: () => (++sends < 3 ? lost() : Promise.resolve("made")),
      afterFailure: async (err) => {
        looks.push(String(err));
        return RESEND;
      },
    });
    expect(outcome).toEqual({ answer: "made" });
    expect(sends).toBe(3);
    expect(looks).toEqual(["Error: answer lost", "Error: answer lost"]);
  });

  it("ends with what the look found, without sending again", async () => {
    const sender = counted();
    const outcome = await sendLookResend({
      send: sender.send,
      afterFailure: async () => ({ found: 42 }),
    });
    expect(outcome).toEqual({ found: 42 });
    expect(sender.sends).toBe(1);
  });

  it("stops after DEFAULT_MAX_SENDS failures and says so", async () => {
    const sender = counted();
    const outcome = await sendLookResend({ send: sender.send, afterFailure: async () => RESEND });
    expect(outcome).toEqual({ exhausted: true });
    expect(sender.sends).toBe(DEFAULT_MAX_SENDS);
    expect(DEFAULT_MAX_SENDS).toBe(3);
  });

  it("is ended by a look that throws", async () => {
    const refused = sendLookResend({
      send: lost,
      afterFailure: async () => {
        throw new Error("409 conflict");
      },
    });
    await expect(refused).rejects.toThrow("409 conflict");
  });
});
