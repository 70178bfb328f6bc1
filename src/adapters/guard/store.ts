import { constants } from "node:fs";
import { appendFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { parseJson, parseJsonObject } from "../../core/common/json.ts";
import { StateError } from "../../core/errors.ts";
import { GuardRecord, StructuredEntry, TurnSchema } from "../../core/guard/record.ts";
import type { GuardStore, StorePort } from "../../core/ports.ts";
import { asFileFault, isNotFound, onPath, readTextOrNull } from "../files.ts";
import { writeOwnFile } from "../state.ts";

const APPEND_NOFOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/**
 * The guardrails' files in a worker's session dir: `guards/<baseline>.json`, `turn-schema.json` and
 * `events/structured.jsonl` (in events/, so a StructuredOutput call wakes a waiter like a hook does).
 * Like the store's own files: the state root is checked first (once per process), and a fault other
 * than a missing file is a FileAccessError naming the path.
 */
export function createGuardStore(store: Pick<StorePort, "paths" | "checkRoot">): GuardStore {
  const guards = (name: string) => join(store.paths(name).dir, "guards");
  const turnSchema = (name: string) => join(store.paths(name).dir, "turn-schema.json");
  const structuredLog = (name: string) => join(store.paths(name).events, "structured.jsonl");
  // guards/ is made on first use; the worker's directory never is (a late write is WorkerNotFoundError).
  const writeGuardFile = (name: string, file: string, text: string) =>
    writeOwnFile(name, store.paths(name).dir, join(guards(name), file), text, guards(name));
  return {
    async list(name) {
      await store.checkRoot();
      let files: string[];
      try {
        files = (await readdir(guards(name))).filter((f) => /^\d+\.json$/.test(f));
      } catch (error) {
        if (isNotFound(error)) return [];
        throw asFileFault(error, guards(name), "list");
      }
      const records = await Promise.all(
        files.map(async (file) => {
          const path = join(guards(name), file);
          const text = await readTextOrNull(path);
          // Removed since the listing (a failed delivery's record): not a record any more.
          return text === null ? null : parseRecord(GuardRecord, text, path, name);
        }),
      );
      return records.filter((r): r is GuardRecord => r !== null).sort((a, b) => a.baseline - b.baseline);
    },
    async write(name, record) {
      await store.checkRoot();
      await writeGuardFile(name, `${record.baseline}.json`, `${JSON.stringify(record)}\n`);
    },
    async remove(name, baseline) {
      await store.checkRoot();
      const path = join(guards(name), `${baseline}.json`);
      await onPath(path, "remove", () => rm(path, { force: true }));
    },
    async writeTurnSchema(name, turn) {
      await store.checkRoot();
      await writeOwnFile(name, store.paths(name).dir, turnSchema(name), `${JSON.stringify(turn)}\n`);
    },
    async readTurnSchema(name) {
      await store.checkRoot();
      const path = turnSchema(name);
      const text = await readTextOrNull(path);
      return text === null ? null : parseRecord(TurnSchema, text, path, name);
    },
    async appendStructured(name, entry) {
      await store.checkRoot();
      const path = structuredLog(name);
      // One write with O_APPEND: two calls never interleave inside a line. O_NOFOLLOW: never through a link.
      await onPath(path, "write", () =>
        appendFile(path, `${JSON.stringify(entry)}\n`, { mode: 0o600, flag: APPEND_NOFOLLOW }),
      );
    },
    async readStructured(name) {
      await store.checkRoot();
      const text = (await readTextOrNull(structuredLog(name))) ?? "";
      const complete = text.slice(0, text.lastIndexOf("\n") + 1);
      return complete
        .split("\n")
        .map((line) => StructuredEntry.safeParse(parseJsonObject(line)))
        .flatMap((parsed) => (parsed.success ? [parsed.data] : []));
    },
    async writeFile(name, file, text) {
      await store.checkRoot();
      await writeGuardFile(name, file, text);
    },
    path: (name, file) => join(guards(name), file),
  };
}

function parseRecord<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  text: string,
  path: string,
  name: string,
): T {
  const parsed = schema.safeParse(parseJson(text));
  if (parsed.success) return parsed.data;
  throw new StateError(`worker ${name} has a guardrail file umbel cannot read: ${path}`, { name, path });
}
