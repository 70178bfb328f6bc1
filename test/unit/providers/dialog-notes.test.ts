import { expect, test } from "bun:test";
import { renderDialogNotes } from "../../../src/faces/verbs/render-dialogs.ts";

test.each([
  [
    "a lasting trust, with where the CLI keeps it",
    {
      dialog: "trust",
      answer: "Yes, I trust this folder",
      folders: ["/work/p"],
      lasting: true,
      record: "/home/u/.claude.json",
    },
    'umbel: w1: answered claude\'s trust dialog for /work/p: "Yes, I trust this folder"; claude keeps this answer in /home/u/.claude.json\n',
  ],
  [
    "a trust for this worker only",
    { dialog: "add-dir", answer: "Yes, add it", folders: ["/a", "/b"], lasting: false },
    'umbel: w1: answered claude\'s add-dir dialog for /a, /b: "Yes, add it" (not kept past this worker)\n',
  ],
  [
    "no option named",
    { dialog: "auto-mode-billing-notice", lasting: false },
    "umbel: w1: answered claude's auto-mode-billing-notice dialog\n",
  ],
])("one stderr line per dialog umbel answered: %s", (_what, dialog, line) => {
  expect(renderDialogNotes({ name: "w1", provider: "claude", dialogs: [dialog] })).toBe(line);
});

test("none answered: nothing", () => {
  expect(renderDialogNotes({ name: "w1", provider: "claude", dialogs: [] })).toBe("");
});
