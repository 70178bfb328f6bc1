import type { Random } from "./seeded.ts";

/**
 * Ways to break a workflow file, for the fuzz test: what the adversarial probes of issue 11 did
 * (byte flips, truncations, duplicated keys, alias tricks, deep nesting, huge scalars, wrong
 * types). Each takes the text and a seeded random source and returns the broken text.
 */
export type Mutation = { name: string; apply(text: string, r: Random): string };

const SPECIALS = [..."{}[],:&*!|>'\"%@`#-?~\n\t ", "\u0000", "\u00e9", "\ufeff"];
const WRONG = [
  "123",
  "true",
  "null",
  "~",
  "[]",
  "{}",
  "-1.5",
  ".inf",
  "0x1F",
  "2001-12-14",
  "!!binary aGk=",
  "!!set {a}",
  "!custom x",
  "'{{'",
];

const lines = (text: string) => text.split("\n");
const at = (text: string, r: Random) => r.int(Math.max(1, text.length));

/** A line that holds `key: value`, and where its value starts; null when there is none. */
function valueSpot(text: string, r: Random): { line: number; col: number } | null {
  const all = lines(text);
  const spots = all.flatMap((l, i) => {
    const m = /^(\s*(?:- )?[A-Za-z_][\w-]*:\s)/.exec(l);
    return m && !l.trimStart().startsWith("#") ? [{ line: i, col: (m[1] ?? "").length }] : [];
  });
  return spots.length > 0 ? r.pick(spots) : null;
}

function replaceValue(text: string, r: Random, value: string): string {
  const spot = valueSpot(text, r);
  if (!spot) return `${text}\nx: ${value}\n`;
  const all = lines(text);
  all[spot.line] = (all[spot.line] ?? "").slice(0, spot.col) + value;
  return all.join("\n");
}

export const MUTATIONS: Mutation[] = [
  {
    name: "byte flip",
    apply: (t, r) => ((i) => t.slice(0, i) + r.pick(SPECIALS) + t.slice(i + 1))(at(t, r)),
  },
  { name: "truncation", apply: (t, r) => t.slice(0, at(t, r)) },
  {
    name: "duplicated line (duplicate keys)",
    apply: (t, r) => {
      const all = lines(t);
      const i = r.int(all.length);
      all.splice(i, 0, all[i] ?? "");
      return all.join("\n");
    },
  },
  {
    name: "deleted line",
    apply: (t, r) => {
      const all = lines(t);
      all.splice(r.int(all.length), 1);
      return all.join("\n");
    },
  },
  {
    name: "re-indented line",
    apply: (t, r) => {
      const all = lines(t);
      const i = r.int(all.length);
      all[i] = r.next() < 0.5 ? ` ${" ".repeat(r.int(6))}${all[i]}` : (all[i] ?? "").replace(/^ {1,4}/, "");
      return all.join("\n");
    },
  },
  { name: "wrong type", apply: (t, r) => replaceValue(t, r, r.pick(WRONG)) },
  {
    name: "alias trick",
    apply: (t, r) =>
      r.pick([
        () => replaceValue(t, r, "*nope"),
        () => replaceValue(t, r, "&me [*me]"),
        () => replaceValue(t, r, `{ <<: ${r.pick(["1", "[x]", "*nope", "[[a]]", "~"])} }`),
        () => t.replace(/^workers:\n/m, "workers:\n  base: &b [x, x, x, x, x, x, x, x, x]\n"),
        () => t.replace(/^workers:\n/m, laughs(r.pick(["[", "{"]))),
        () => replaceValue(t, r, `[${Array.from({ length: 150 }, () => "*b").join(", ")}]`),
      ])(),
  },
  {
    name: "deep nesting",
    apply: (t, r) => {
      const n = r.pick([33, 40, 200, 5_000, 50_000]);
      return replaceValue(
        t,
        r,
        r.pick([
          () => `${"[".repeat(n)}${"]".repeat(n)}`,
          () => `${"{a: ".repeat(n)}1${"}".repeat(n)}`,
          () => `\n${"- ".repeat(n)}x`,
          () => `\n${"? ".repeat(n)}x`,
        ])(),
      );
    },
  },
  {
    name: "huge scalar",
    apply: (t, r) => {
      const big = r.pick(["k", "{{", "é", "ab "]).repeat(r.pick([1_000, 100_000, 400_000]));
      return r.pick([
        () => replaceValue(t, r, JSON.stringify(big)),
        () => t.replace(/^steps:/m, `${big.replace(/\W/g, "k")}: 1\nsteps:`),
        () => `${t}\n# ${big}\n`,
        () => replaceValue(t, r, `|\n  ${big}`),
      ])();
    },
  },
  {
    name: "document tricks",
    apply: (t, r) =>
      r.pick([
        `---\n${t}\n---\n${t}`,
        `%YAML 1.1\n---\n${t}`,
        `${t}\n...\njunk: [`,
        `\ufeff${t}`,
        t.replaceAll("\n", "\r\n"),
      ]),
  },
  {
    name: "not a workflow",
    apply: (_t, r) =>
      r.pick([
        Array.from(
          { length: 40 },
          (_, i) => `user${i}:x:${1000 + i}:${1000 + i}:User ${"n".repeat(90)}:/home/u${i}:/bin/sh`,
        ).join("\n"),
        "just a sentence of prose\n",
        "- a\n- b\n",
        "\u0000\u0001\u0002binary\u00ff",
        "{}",
        "42",
      ]),
  },
];

function laughs(open: "[" | "{"): string {
  const close = open === "[" ? "]" : "}";
  const items = (ref: string) =>
    Array.from({ length: 9 }, (_, i) => (open === "[" ? ref : `k${i}: ${ref}`)).join(", ");
  let text = `workers:\n  l0: &l0 ${open}${items("x")}${close}\n`;
  for (let i = 1; i < 9; i++) text += `  l${i}: &l${i} ${open}${items(`*l${i - 1}`)}${close}\n`;
  return text;
}
