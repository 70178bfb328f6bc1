import { describe, expect, test } from "bun:test";
import { screenLine } from "../../../src/faces/mcp/jsonrpc-gate.ts";

/**
 * The line guard in front of the SDK (issue 11, item 14): 22 of 37 malformed lines got no reply,
 * 7 of them with an id the client then waited on forever. Every line with an id now gets exactly
 * one JSON-RPC error naming the problem in one line; a line that is not JSON gets id null; a
 * notification (no id) and a response never get a reply.
 */

const PING = { jsonrpc: "2.0", id: 1, method: "ping" };
const line = (value: unknown) => JSON.stringify(value);

type Expected = [id: string | number | null, code: number, message: string | RegExp];

describe("malformed lines get exactly one error each", () => {
  test.each<[string, string, Expected[]]>([
    ["not JSON", "not json", [[null, -32700, /^Parse error: /]]],
    ["a truncated object", '{"jsonrpc":"2.0","id":7,"method":"pi', [[null, -32700, /^Parse error: /]]],
    [
      "params that are a string",
      line({ ...PING, params: "x" }),
      [[1, -32600, 'Invalid request: "params" must be an object']],
    ],
    [
      "params that are a list",
      line({ ...PING, params: [1] }),
      [[1, -32602, 'Invalid params: "params" must be an object (named), not a list']],
    ],
    [
      "a fractional id",
      line({ ...PING, id: 1.5 }),
      [[1.5, -32600, 'Invalid request: "id" must be a string or an integer']],
    ],
    [
      "a null id",
      line({ ...PING, id: null }),
      [[null, -32600, 'Invalid request: "id" must be a string or an integer']],
    ],
    [
      "a boolean id",
      line({ ...PING, id: true }),
      [[null, -32600, 'Invalid request: "id" must be a string or an integer']],
    ],
    [
      "a numeric method",
      line({ ...PING, method: 123 }),
      [[1, -32600, 'Invalid request: "method" must be a string']],
    ],
    [
      "a numeric method without an id",
      line({ jsonrpc: "2.0", method: 1 }),
      [[null, -32600, 'Invalid request: "method" must be a string']],
    ],
    [
      "JSON-RPC 1.0",
      line({ ...PING, jsonrpc: "1.0" }),
      [[1, -32600, 'Invalid request: "jsonrpc" must be "2.0"']],
    ],
    [
      "no jsonrpc",
      line({ id: 4, method: "ping" }),
      [[4, -32600, 'Invalid request: "jsonrpc" must be "2.0"']],
    ],
    [
      "an unknown member",
      line({ ...PING, extra: 1 }),
      [[1, -32600, 'Invalid request: unknown member "extra"']],
    ],
    [
      "two objects on one line",
      line({ ...PING, id: 3 }) + line({ ...PING, id: 4 }),
      [
        [3, -32700, "Parse error: 2 JSON values on one line; send one message per line"],
        [4, -32700, "Parse error: 2 JSON values on one line; send one message per line"],
      ],
    ],
    [
      "a batch",
      line([PING, { ...PING, id: "b" }, { jsonrpc: "2.0", method: "notifications/initialized" }]),
      [
        [1, -32600, "Invalid request: batches are not supported (MCP has none); send one message per line"],
        ["b", -32600, "Invalid request: batches are not supported (MCP has none); send one message per line"],
      ],
    ],
    [
      "an empty batch",
      "[]",
      [
        [
          null,
          -32600,
          "Invalid request: batches are not supported (MCP has none); send one message per line",
        ],
      ],
    ],
    ["a number", "5", [[null, -32600, "Invalid request: a message is a JSON object"]]],
    ["an empty object", "{}", [[null, -32600, /^Invalid request: a message needs "method"/]]],
    [
      "an id alone",
      line({ jsonrpc: "2.0", id: 9 }),
      [[9, -32600, /^Invalid request: a message needs "method"/]],
    ],
    [
      "tools/call without params",
      line({ ...PING, method: "tools/call" }),
      [[1, -32602, "Invalid params for tools/call: params: expected object, received undefined"]],
    ],
    [
      "tools/call without a name",
      line({ ...PING, method: "tools/call", params: { arguments: {} } }),
      [[1, -32602, "Invalid params for tools/call: params.name: expected string, received undefined"]],
    ],
    [
      "initialize without its fields",
      line({ ...PING, method: "initialize", params: {} }),
      [
        [
          1,
          -32602,
          /^Invalid params for initialize: params\.protocolVersion: expected string, received undefined \(and 2 more\)$/,
        ],
      ],
    ],
    [
      "a task request to a server without tasks",
      line({ ...PING, method: "tools/call", params: { name: "umbel_help", task: { ttl: 1 } } }),
      [[1, -32602, 'Invalid params: this server does not run tasks (remove "params.task")']],
    ],
  ])("%s", (_what, text, expected) => {
    const screened = screenLine(text);
    expect(screened.message).toBeUndefined();
    expect(screened.replies).toHaveLength(expected.length);
    screened.replies.forEach((reply, i) => {
      const [id, code, message] = expected[i] as Expected;
      expect(reply).toEqual({ jsonrpc: "2.0", id, error: { code, message: expect.stringMatching(message) } });
      if (typeof message === "string") expect(reply.error.message).toBe(message);
      expect(reply.error.message).not.toContain("\n");
      expect(reply.error.message.length).toBeLessThan(300);
    });
  });
});

describe("lines that get no reply from the guard", () => {
  test.each([
    ["a request", line(PING)],
    [
      "a request for a method the server does not have (the SDK answers -32601)",
      line({ ...PING, method: "nope" }),
    ],
    ["a notification", line({ jsonrpc: "2.0", method: "notifications/initialized" })],
    ["a response", line({ jsonrpc: "2.0", id: 5, result: {} })],
    ["a request with CRLF", `${line(PING)}\r`],
  ])("%s is passed on to the SDK", (_what, text) => {
    const screened = screenLine(text);
    expect(screened.replies).toEqual([]);
    expect(screened.message).toEqual(JSON.parse(text));
  });

  test.each([
    ["a blank line", "   "],
    [
      "a notification with bad params",
      line({ jsonrpc: "2.0", method: "notifications/cancelled", params: "x" }),
    ],
    [
      "a notification with an unknown member",
      line({ jsonrpc: "2.0", method: "notifications/initialized", x: 1 }),
    ],
    ["a malformed response", line({ jsonrpc: "2.0", id: 5, result: 5 })],
  ])("%s is dropped without a reply", (_what, text) => {
    expect(screenLine(text)).toEqual({ replies: [] });
  });
});

test("a huge bad line is named in a short message, never echoed", () => {
  const huge = `{"jsonrpc":"2.0","id":1,"method":"${"m".repeat(100_000)}","params":"${"p".repeat(100_000)}"}`;
  const [reply] = screenLine(huge).replies;
  expect(reply?.error.message).toBe('Invalid request: "params" must be an object');
  const [parse] = screenLine(`{${"x".repeat(100_000)}`).replies;
  expect(parse?.error.message.length).toBeLessThan(200);
});
