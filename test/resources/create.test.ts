/**
 * createExactlyOnce (src/resources/create.ts) against a scripted service: every way a create's
 * answer can go missing, and what the helper concludes from what the list shows.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { ConflictError, createApiError } from "../../src/api/errors";
import { CreateFailedError, CreateLedger, createExactlyOnce } from "../../src/resources/create";
import { CreateJournal, type JournalEntry, requestDigest } from "../../src/resources/journal";
import { SharedLists } from "../../src/resources/shared-list";
import { deadPid } from "../support/dead-process";
import { tempDir } from "../support/temp-dir";

/** What createExactlyOnce needs to know of one create. */
type CreateRecipe<Answer, Live> = Parameters<typeof createExactlyOnce<Answer, Live>>[0];

interface Thing {
  id: number;
  name: string;
}

/** A 502 after the service may have acted, as the client reports it. */
function lostAnswer(): Error {
  return createApiError({
    status: 502,
    code: "unavailable",
    method: "POST",
    path: "/v1/things",
    mayHaveBeenApplied: true,
  });
}

/**
 * A service holding `things`. Each send runs the next step of `script`: "ok" makes the object
 * and answers it, "lost" makes it and loses the answer, "refused" makes nothing and fails as if
 * it might have, "conflict" answers 409.
 */
function service(things: Thing[] = []) {
  let nextId = 100;
  // One provider session per service: its list cache, create ledger and journal.
  const session = {
    lists: new SharedLists(undefined),
    creates: new CreateLedger(),
    journal: new CreateJournal(tempDir("create-test-")),
  };
  const calls = { sends: 0, reads: 0, discarded: [] as number[] };
  const make = (name: string) => {
    const thing = { id: nextId++, name };
    things.push(thing);
    return thing;
  };
  const recipe = (
    name: string,
    script: ("ok" | "lost" | "refused" | "conflict")[],
    extra: Partial<CreateRecipe<Thing, Thing>> = {},
  ): CreateRecipe<Thing, Thing> => ({
    what: { kind: "Thing", noun: "thing" },
    describe: `named ${JSON.stringify(name)}`,
    session,
    request: { name },
    settleMs: 0,
    lookup: {
      key: "things",
      read: async () => {
        calls.reads++;
        return things.map((t) => ({ ...t }));
      },
      idOf: (t) => t.id,
      matches: (t) => t.name === name,
    },
    send: async () => {
      calls.sends++;
      const step = script.shift() ?? "ok";
      if (step === "conflict") {
        throw createApiError({ status: 409, code: "conflict", method: "POST", path: "/v1/things" });
      }
      if (step === "refused") throw lostAnswer();
      const thing = make(name);
      if (step === "lost") throw lostAnswer();
      return thing;
    },
    idInAnswer: (t) => t.id,
    ...extra,
  });
  /** Recipe fields for a create whose session keeps `journal`. */
  const journaled = (journal: CreateJournal) => ({ session: { ...session, journal } });
  return { things, calls, recipe, make, journaled };
}

describe("createExactlyOnce", () => {
  it("answers what the service answered, after one send", async () => {
    const svc = service();
    const made = await createExactlyOnce(svc.recipe("a", ["ok"]));
    expect(made).toMatchObject({ id: 100, answer: { id: 100, name: "a" } });
    expect(svc.calls.sends).toBe(1);
  });

  it("takes the object a lost answer made, without sending again", async () => {
    const svc = service();
    const made = await createExactlyOnce(svc.recipe("a", ["lost"]));
    expect(made).toMatchObject({ id: 100, found: { id: 100, name: "a" } });
    expect(svc.calls.sends).toBe(1);
    expect(svc.things).toHaveLength(1);
  });

  it("sends again when the lookup proves nothing was made", async () => {
    const svc = service();
    const made = await createExactlyOnce(svc.recipe("a", ["refused", "ok"]));
    expect(made.id).toBe(100);
    expect(svc.calls.sends).toBe(2);
    expect(svc.things).toHaveLength(1);
  });

  it("never takes an identical object that existed before the request", async () => {
    const svc = service([{ id: 1, name: "a" }]);
    const made = await createExactlyOnce(svc.recipe("a", ["refused", "ok"]));
    expect(made.id).toBe(100);
    expect(svc.things.map((t) => t.id)).toEqual([1, 100]);
  });

  it("fails naming every id when several new objects match", async () => {
    const svc = service();
    const recipe = svc.recipe("a", ["lost"]);
    const send = recipe.send;
    recipe.send = async () => {
      svc.make("a"); // someone else's, at the same moment
      return send();
    };
    const err = await createExactlyOnce(recipe).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CreateFailedError);
    expect((err as CreateFailedError).ids).toEqual([100, 101]);
    expect((err as Error).message).toMatch(
      /2 new things named "a" appeared meanwhile \(ids 100, 101\) and the provider cannot tell which this request made/,
    );
  });

  it("gives up after the sends allowed, saying nothing was made instead of 'check for it'", async () => {
    const svc = service();
    const err = (await createExactlyOnce(svc.recipe("a", ["refused", "refused", "refused"])).catch(
      (e: unknown) => e,
    )) as Error;
    expect(err.message).toBe(
      "POST /v1/things failed: 502 unavailable; the request was sent 3 times and each time it failed, the thing was looked for and not found: nothing was made; run pulumi up again",
    );
    expect(svc.things).toEqual([]);
  });

  it("retries the lookup's reads, and says so when they keep failing", async () => {
    const svc = service();
    const recipe = svc.recipe("a", ["lost"]);
    const read = recipe.lookup?.read;
    let reads = 0;
    if (recipe.lookup !== undefined && read !== undefined) {
      recipe.lookup.read = async (options) => {
        reads++;
        // The look before the create works; the lookup after it does not.
        if (reads > 1) {
          expect(options?.maxRetries).toBeGreaterThanOrEqual(8);
          throw new Error("GET /v1/things failed: 500 internal (gave up after 9 attempts)");
        }
        return read(options);
      };
    }
    const err = (await createExactlyOnce(recipe).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(
      'POST /v1/things failed: 502 unavailable; looking for the thing it may have made failed too (GET /v1/things failed: 500 internal (gave up after 9 attempts)): look for a thing named "a", then delete it or adopt it with adoptId before running pulumi up again',
    );
  });

  // A service that ignores the `page` parameter (the project's, not the spec's) answers its
  // first page for every page: the list repeats objects and may hide others.
  it("takes nothing from a list that repeats an object, before or after the send", async () => {
    const svc = service([{ id: 1, name: "a" }]);
    const recipe = svc.recipe("a", ["lost"]);
    const read = recipe.lookup?.read;
    if (recipe.lookup !== undefined && read !== undefined) {
      recipe.lookup.read = async (options) => {
        const page = await read(options);
        return [...page, ...page];
      };
    }
    const before = (await createExactlyOnce(recipe).catch((e: unknown) => e)) as Error;
    expect(before.message).toBe(
      "reading the things before sending the create failed (the list shows thing 1 twice, as a service does that ignores the page parameter); nothing was sent",
    );
    expect(svc.calls.sends).toBe(0);

    const after = service();
    const lost = after.recipe("a", ["lost"]);
    const readAfter = lost.lookup?.read;
    if (lost.lookup !== undefined && readAfter !== undefined) {
      lost.lookup.read = async (options) => {
        const page = await readAfter(options);
        return after.calls.sends === 0 ? page : [...page, ...page];
      };
    }
    const err = (await createExactlyOnce(lost).catch((e: unknown) => e)) as CreateFailedError;
    expect(err.message).toBe(
      'POST /v1/things failed: 502 unavailable; looking for the thing it may have made failed too (the list shows thing 100 twice, as a service does that ignores the page parameter): look for a thing named "a", then delete it or adopt it with adoptId before running pulumi up again',
    );
    expect(after.calls.sends).toBe(1);
  });

  it("looks a second time before concluding that nothing was made", async () => {
    const svc = service();
    const recipe = svc.recipe("a", ["refused"]);
    let reads = 0;
    const read = recipe.lookup?.read;
    if (recipe.lookup !== undefined && read !== undefined) {
      recipe.lookup.read = async (options) => {
        reads++;
        // The service finishes the request between the first and the second look.
        if (reads === 3) svc.make("a");
        return read(options);
      };
    }
    const made = await createExactlyOnce(recipe);
    expect(made).toMatchObject({ id: 100, found: { id: 100, name: "a" } });
    expect(svc.calls.sends).toBe(1);
  });

  it("finds the object a success made when the answer names no id", async () => {
    const svc = service([{ id: 1, name: "a" }]);
    const made = await createExactlyOnce(svc.recipe("a", ["ok"], { idInAnswer: () => undefined }));
    expect(made).toMatchObject({ id: 100, found: { id: 100, name: "a" } });
  });

  it("deletes a useless object a lost answer made, then sends again", async () => {
    const svc = service();
    const recipe = svc.recipe("a", ["lost", "ok"]);
    recipe.discard = async (id) => {
      svc.calls.discarded.push(id);
      svc.things.splice(
        svc.things.findIndex((x) => x.id === id),
        1,
      );
    };
    const made = await createExactlyOnce(recipe);
    expect(made).toMatchObject({ id: 101, answer: { id: 101, name: "a" } });
    expect(svc.calls.discarded).toEqual([100]);
    expect(svc.things.map((t) => t.id)).toEqual([101]);
  });

  it("fails with the id when deleting a useless object fails", async () => {
    const svc = service();
    const recipe = svc.recipe("a", ["lost"]);
    recipe.discard = async () => {
      throw new Error("DELETE /v1/things/100 failed: 500 internal");
    };
    const err = (await createExactlyOnce(recipe).catch((e: unknown) => e)) as CreateFailedError;
    expect(err.ids).toEqual([100]);
    expect(err.message).toMatch(
      /the request made thing 100, which is useless without the lost answer, and deleting it failed \(DELETE \/v1\/things\/100 failed: 500 internal\): delete thing 100/,
    );
  });

  it("passes a 409 through for the caller to explain", async () => {
    const svc = service();
    const err = await createExactlyOnce(svc.recipe("a", ["conflict"])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
  });

  it("does not let concurrent creates in one process claim each other's objects", async () => {
    const svc = service();
    // B's request is applied at once, but its answer arrives only after A's lookup has begun.
    let answerB: ((thing: Thing) => void) | undefined;
    const b = svc.recipe("a", []);
    b.send = () =>
      new Promise((ok) => {
        const thing = svc.make("a");
        answerB = () => ok(thing);
      });
    const a = svc.recipe("a", ["lost"]);
    const sendA = a.send;
    // B's answer arrives a moment after A's was lost, when A is already looking.
    a.send = () => sendA().finally(() => setTimeout(() => answerB?.({ id: -1, name: "" }), 5));
    const startedB = createExactlyOnce(b);
    while (answerB === undefined) await new Promise((ok) => setImmediate(ok));
    const [madeA, madeB] = await Promise.all([createExactlyOnce(a), startedB]);
    expect(madeB.id).toBe(100);
    expect(madeA).toMatchObject({ id: 101, found: { id: 101, name: "a" } });
    expect(svc.things).toHaveLength(2);
  });
});

describe("createExactlyOnce with a journal (a host killed mid-create)", () => {
  /** A journal in a new directory, with `entries` left by other processes. */
  function journalWith(entries: Partial<JournalEntry>[]): { journal: CreateJournal; dir: string } {
    const dir = tempDir("journal-test-");
    entries.forEach((entry, i) => {
      const full = {
        name: `e${i}`,
        kind: "Thing",
        pid: deadPid(),
        process: "gone",
        at: Date.now(),
        before: [],
        ...entry,
      };
      writeFileSync(join(dir, `${full.name}.json`), JSON.stringify(full));
    });
    return { journal: new CreateJournal(dir), dir };
  }

  const request = { name: "a" };
  const digest = requestDigest("Thing", request);

  /** The journal as its folder holds it: open entries' files, and the closed log's lines. */
  function onDisk(journal: CreateJournal): { open: JournalEntry[]; closed: JournalEntry[] } {
    const read = (dir: string, ending: string) =>
      readdirSync(dir)
        .filter((file) => file.endsWith(ending))
        .flatMap((file) => readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean))
        .map((line) => JSON.parse(line) as JournalEntry);
    return {
      open: read(journal.dir, ".json"),
      closed: read(join(journal.dir, "closed"), ".jsonl"),
    };
  }

  it("takes over the object a dead host's create made, without sending", async () => {
    const svc = service([{ id: 7, name: "a" }]);
    const { journal, dir } = journalWith([{ digest, id: 7, before: [] }]);
    const made = await createExactlyOnce(svc.recipe("a", [], svc.journaled(journal)));
    expect(made).toMatchObject({ id: 7, found: { id: 7, name: "a" } });
    expect(svc.calls.sends).toBe(0);
    made.close();
    // The orphan is gone; this create's closed entry keeps the id from any later take-over.
    expect(readdirSync(dir)).toEqual(["closed"]);
    expect(journal.orphans(digest)).toEqual([]);
    expect(journal.claimedIds("Thing")).toEqual(new Set([7]));
  });

  it("takes over the one new matching object when the dead host never heard the answer", async () => {
    const svc = service([
      { id: 1, name: "a" },
      { id: 7, name: "a" },
    ]);
    const { journal } = journalWith([{ digest, before: [1] }]);
    const made = await createExactlyOnce(svc.recipe("a", [], svc.journaled(journal)));
    expect(made.id).toBe(7);
    expect(svc.calls.sends).toBe(0);
  });

  it("never takes over an id a finished create handed to the engine, nor one of a live host", async () => {
    const svc = service([
      { id: 7, name: "a" },
      { id: 8, name: "a" },
    ]);
    const { journal } = journalWith([
      { digest, before: [] },
      { digest: "other", id: 7, closedAt: Date.now() },
      { digest: "other", id: 8, pid: process.pid, process: "another live one" },
    ]);
    const made = await createExactlyOnce(svc.recipe("a", ["ok"], svc.journaled(journal)));
    expect(made.id).toBe(100);
    expect(svc.calls.sends).toBe(1);
    expect(journal.orphans(digest)).toEqual([]);
  });

  it("never takes over the id a dead host's answer named once another create handed it to the engine", async () => {
    const svc = service([{ id: 7, name: "a" }]);
    const { journal } = journalWith([
      { digest, kind: "Thing", id: 7, before: [] },
      { digest: "other", kind: "Thing", id: 7, closedAt: Date.now() },
    ]);
    const made = await createExactlyOnce(svc.recipe("a", ["ok"], svc.journaled(journal)));
    expect(made.id).toBe(100);
    expect(svc.calls.sends).toBe(1);
    expect(journal.orphans(digest)).toEqual([]);
  });

  it("takes over the id a dead host's answer named when only another kind's create holds that number", async () => {
    // The same dead host made SSH key 7 (handed to the engine), then thing 7, and died.
    const svc = service([{ id: 7, name: "a" }]);
    const { journal } = journalWith([
      { digest: "its key", kind: "SshKey", id: 7, closedAt: Date.now() },
      { digest, kind: "Thing", id: 7, before: [] },
    ]);
    const made = await createExactlyOnce(svc.recipe("a", [], svc.journaled(journal)));
    expect(made).toMatchObject({ id: 7, found: { id: 7, name: "a" } });
    expect(svc.calls.sends).toBe(0);
    expect(svc.things).toHaveLength(1);
  });

  it("leaves the entry open until the caller closes it, when the create goes on after it", async () => {
    const svc = service();
    const { journal } = journalWith([]);
    const made = await createExactlyOnce(svc.recipe("a", ["ok"], svc.journaled(journal)));
    expect(onDisk(journal).open.map((e) => e.id)).toEqual([made.id]);
    made.close();
    expect(onDisk(journal).open).toEqual([]);
    expect(onDisk(journal).closed.map((e) => e.id)).toEqual([made.id]);
  });

  /**
   * A create of a kind that cannot be listed but whose names are unique (a user): each send
   * does the next of `steps`: makes thing 8, loses its answer (the default), or answers a 409
   * naming thing 7, made at `holderMadeAt` by a service whose clock agrees with ours. Deleting a
   * holder takes a minute.
   */
  function uniqueRecipe(
    journal: CreateJournal,
    steps: ("ok" | "lost" | { holderMadeAt: number } | { holder: Record<string, unknown> })[],
    /** The 409's clock offset; `null` for an answer without a `Date` header. */
    serviceClockAheadMs: number | null = 0,
  ): { recipe: CreateRecipe<Thing, Thing>; discarded: number[] } {
    const discarded: number[] = [];
    const recipe: CreateRecipe<Thing, Thing> = {
      what: { kind: "Thing", noun: "thing" },
      describe: 'named "a"',
      session: { lists: new SharedLists(undefined), creates: new CreateLedger(), journal },
      request,
      lookup: undefined,
      discard: async (id) => {
        discarded.push(id);
        vi.setSystemTime(Date.now() + 60_000);
      },
      send: async () => {
        const step = steps.shift() ?? "lost";
        if (step === "ok") return { id: 8, name: "a" };
        if (step === "lost") throw lostAnswer();
        throw createApiError({
          status: 409,
          code: "conflict",
          method: "POST",
          path: "/v1/things",
          body:
            "holder" in step
              ? step.holder
              : { existing_id: 7, existing_created_at: new Date(step.holderMadeAt).toISOString() },
          serviceClockAheadMs: serviceClockAheadMs ?? undefined,
        });
      },
      idInAnswer: (t) => t.id,
    };
    return { recipe, discarded };
  }

  it("leaves a unique kind's unresolved create open, dated from its first unresolved send", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const start = Date.now();
      const { journal } = journalWith([]);
      // The first send's answer was lost; the second's 409 names what it made, deleted; the
      // third's answer was lost too.
      const { recipe, discarded } = uniqueRecipe(journal, [
        "lost",
        { holderMadeAt: start },
        "lost",
      ]);
      await expect(createExactlyOnce(recipe)).rejects.toThrow(/sent 3 times/);
      expect(discarded).toEqual([7]);
      const { open, closed } = onDisk(journal);
      const [entry, ...others] = [...open, ...closed];
      expect(others).toEqual([]);
      expect(entry).toMatchObject({ at: start, sentAt: start + 60_000 });
      expect(entry?.closedAt).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it("never deletes a holder made before a dead host's first unresolved send", async () => {
    const now = Date.now();
    const hour = 60 * 60 * 1000;
    const { journal } = journalWith([{ digest, at: now - 2 * hour, sentAt: now - hour }]);
    const { recipe, discarded } = uniqueRecipe(journal, [{ holderMadeAt: now - 1.5 * hour }]);
    const err = await createExactlyOnce(recipe).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(discarded).toEqual([]);
    expect(journal.orphans(digest)).toEqual([]);
  });

  it("deletes a holder made after a dead host's first unresolved send, and sends again", async () => {
    const now = Date.now();
    const { journal } = journalWith([{ digest, at: now - 60_000 }]);
    const { recipe, discarded } = uniqueRecipe(journal, [{ holderMadeAt: now - 30_000 }, "ok"]);
    const made = await createExactlyOnce(recipe);
    expect(discarded).toEqual([7]);
    expect(made.id).toBe(8);
    expect(journal.orphans(digest)).toEqual([]);
  });

  // The fail-safe of create.ts: `existing_created_at` and the `Date` header are the project's
  // wire contract, not the API spec. A 409 that does not date its holder never gets it deleted.
  it.each([
    { service: "no existing_created_at", holder: { existing_id: 7 }, clock: 0 },
    {
      service: "no Date header",
      holder: { existing_id: 7, existing_created_at: new Date().toISOString() },
      clock: null,
    },
  ])("never deletes a holder the 409 does not date ($service): fails naming it", async (c) => {
    const { journal } = journalWith([]);
    const { recipe, discarded } = uniqueRecipe(journal, ["lost", { holder: c.holder }], c.clock);
    const err = (await createExactlyOnce(recipe).catch((e: unknown) => e)) as CreateFailedError;
    expect(err).toBeInstanceOf(CreateFailedError);
    expect(err.ids).toEqual([7]);
    expect(err.message).toBe(
      'POST /v1/things failed: 502 unavailable; sent again, the request was refused because thing 7 holds what must be unique, and the service did not say when thing 7 was made (existing_created_at and a Date header, which the API spec does not promise), so the provider cannot tell whether the lost answer made it: nothing was deleted. If thing 7 is the thing named "a" this create made, delete it and run pulumi up again; if it is someone else\'s, choose another name',
    );
    expect(discarded).toEqual([]);
    // Still unresolved: the next run, against a service that dates its holders, can settle it.
    expect(journal.orphans(digest)).toEqual([]);
    const { open, closed } = onDisk(journal);
    expect([...open, ...closed].map((e) => e.closedAt)).toEqual([undefined]);
  });

  it("deletes nothing when the 409 does not name its holder (a service without existing_id)", async () => {
    const { journal } = journalWith([]);
    const { recipe, discarded } = uniqueRecipe(journal, ["lost", { holder: {} }]);
    const err = (await createExactlyOnce(recipe).catch((e: unknown) => e)) as CreateFailedError;
    expect(err.ids).toEqual([]);
    expect(err.message).toBe(
      'POST /v1/things failed: 502 unavailable; sent again, the request was refused as a duplicate, and the service did not say which thing holds what must be unique (existing_id, which the API spec does not promise), so the provider cannot tell whether the lost answer made it: nothing was deleted. If a thing named "a" is the thing this create made, delete it and run pulumi up again; if it is someone else\'s, choose another name',
    );
    expect(discarded).toEqual([]);
  });

  it("never deletes a holder a dead host's orphan might have made, when the 409 does not date it", async () => {
    const { journal } = journalWith([{ digest, at: Date.now() - 60_000 }]);
    const { recipe, discarded } = uniqueRecipe(journal, [{ holder: { existing_id: 7 } }]);
    const err = (await createExactlyOnce(recipe).catch((e: unknown) => e)) as CreateFailedError;
    expect(err.ids).toEqual([7]);
    expect(err.message).toMatch(
      /^a create of this thing was cut short \(its provider process died\); sent again, the request was refused because thing 7 holds what must be unique, and the service did not say when thing 7 was made/,
    );
    expect(discarded).toEqual([]);
  });

  it("never deletes a holder that a finished create handed to the engine", async () => {
    const now = Date.now();
    const { journal } = journalWith([{ digest: "other", id: 7, closedAt: now }]);
    const { recipe, discarded } = uniqueRecipe(journal, ["lost", { holderMadeAt: now + 1000 }]);
    const err = await createExactlyOnce(recipe).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(discarded).toEqual([]);
  });

  it("forgets a dead host's create that made nothing, and sends", async () => {
    const svc = service([{ id: 1, name: "a" }]);
    const { journal, dir } = journalWith([{ digest, before: [1] }]);
    const made = await createExactlyOnce(svc.recipe("a", ["ok"], svc.journaled(journal)));
    expect(made.id).toBe(100);
    made.close();
    expect(readdirSync(dir)).toEqual(["closed"]);
    expect(journal.claimedIds("Thing")).toEqual(new Set([100]));
  });
});
