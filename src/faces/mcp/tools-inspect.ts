import type { HookEvent } from "../../core/providers/types.ts";
import { CaptureInput, EmptyInput, KeysInput, LogsInput, NameInput } from "../../core/schemas.ts";
import { captureScreen } from "../../operations/capture.ts";
import { sendKeys } from "../../operations/keys.ts";
import { streamLogs } from "../../operations/logs.ts";
import { listWorkers, statusOf } from "../../operations/status.ts";
import { renderEvent, renderStatus, renderTable } from "../cli/render.ts";
import { HelpInput, helpTopic } from "./help.ts";
import { CaptureOutput, HelpOutput, KeysOutput, LogsOutput, LsOutput, StatusOutput } from "./output.ts";
import { defineTool, LOOKS, type UmbelTool } from "./tool.ts";

/** The tools that look at workers (status, ls, capture, logs, help), and keys, which presses. */

const SCREEN_SOURCE = {
  live: "",
  "dead-pane": "[the worker has exited; this is its last screen]\n",
  tombstone: "[the worker was killed; this is the screen recorded then]\n",
  none: "[no screen: the worker is gone and none was recorded]",
} as const;

export const inspectTools: UmbelTool[] = [
  defineTool({
    name: "umbel_status",
    title: "Show a worker",
    input: NameInput,
    output: StatusOutput,
    annotations: LOOKS,
    run: async (input, { deps }) => {
      const result = await statusOf(deps, input.name);
      return { data: result, text: renderStatus(result) };
    },
  }),
  defineTool({
    name: "umbel_ls",
    title: "List workers",
    input: EmptyInput,
    output: LsOutput,
    annotations: LOOKS,
    run: async (_input, { deps }) => {
      const workers = await listWorkers(deps);
      return { data: { workers }, text: renderTable(workers) || "no workers" };
    },
  }),
  defineTool({
    name: "umbel_capture",
    title: "Show a worker's screen",
    input: CaptureInput,
    output: CaptureOutput,
    annotations: LOOKS,
    run: async (input, { deps }) => {
      const result = await captureScreen(deps, input);
      return { data: result, text: `${SCREEN_SOURCE[result.source]}${result.screen}` };
    },
  }),
  defineTool({
    name: "umbel_logs",
    title: "Show a worker's events",
    input: LogsInput,
    output: LogsOutput,
    annotations: LOOKS,
    run: async (input, { deps, report }) => {
      const events: HookEvent[] = [];
      await streamLogs(deps, input, (event) => {
        events.push(event);
        if (input.follow) report?.({ progress: events.length, message: renderEvent(event).trim() });
      });
      return {
        data: {
          name: input.name,
          events: events.map((e) => ({ index: e.index, event: e.name, payload: { ...e.payload } })),
        },
        text: events.map(renderEvent).join("") || "no events",
      };
    },
  }),
  defineTool({
    name: "umbel_keys",
    title: "Press keys in a worker",
    input: KeysInput,
    output: KeysOutput,
    // "1" on a permission prompt lets the worker run the command it asked about.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: async (input, { deps }) => {
      const result = await sendKeys(deps, input);
      return { data: result, text: `pressed ${result.sent.join(" ")} in ${result.name}` };
    },
  }),
  defineTool({
    name: "umbel_help",
    title: "umbel help",
    input: HelpInput,
    output: HelpOutput,
    annotations: LOOKS,
    run: async (input) => {
      const help = helpTopic(input.topic);
      return { data: help, text: help.text };
    },
  }),
];
