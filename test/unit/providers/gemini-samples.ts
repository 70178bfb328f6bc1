// Samples from the real gemini-cli 0.61.0 against test/stub-model: screens, a chat transcript, hook
// payloads.

// Screens of the real gemini-cli 0.61.0 TUI (tmux capture-pane, 160x50, against test/stub-model),
// trimmed: trailing blanks dropped, long runs of spaces and rules shortened, at most 30 lines.
export const READY = `
 > mail user\\@example.com about \\@w and \\@approve-me.txt

✦ STUB-REPLY len=53 sha=b42f710af3d7 head=mail user\\\\@example.com about \\\\@w and \\\\@a

 > /about

╭────────────────────────────────────────╮
│  │
│ About Gemini CLI  │
│  │
│ CLI Version     0.61.0  │
│ Git Commit     bb523741c  │
│ Model     gemini-2.5-flash  │
│ Sandbox     no sandbox  │
│ OS     linux  │
│ Auth Method     gemini-api-key  │
│  │
╰────────────────────────────────────────╯

     ? for shortcuts
────────────────────────────────────────
 Shift+Tab to accept edits

 >   Type your message or @path/to/file

 workspace (/directory)     sandbox     /model
 /tmp/gx/w     no sandbox     gemini-2.5-flash
`;

export const BUSY_HOOK = `
 ▝▜▄     Gemini CLI v0.61.0
   ▝▜▄
  ▗▟▀    Authenticated with gemini-api-key /auth
 ▝▀

Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results

 > hello there? really! ok

✦ STUB-REPLY len=23 sha=ecc2d04b2da7 head=hello there? really! ok

 > stub:hang

 ⠹ Executing Hook: umbel-BeforeAgent (esc to cancel, 1s)     ? for shortcuts
────────────────────────────────────────
 Shift+Tab to accept edits

 >   Type your message or @path/to/file

 workspace (/directory)     sandbox     /model
 /tmp/gx/w     no sandbox     gemini-2.5-flash
`;

export const BUSY_THINKING = `
 ▝▜▄     Gemini CLI v0.61.0
   ▝▜▄
  ▗▟▀    Authenticated with gemini-api-key /auth
 ▝▀

Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results

 > hello there? really! ok

✦ STUB-REPLY len=23 sha=ecc2d04b2da7 head=hello there? really! ok

 > stub:hang

 ⠏ Thinking... (esc to cancel, 4s)     ? for shortcuts
────────────────────────────────────────
 Shift+Tab to accept edits

 >   Type your message or @path/to/file

 workspace (/directory)     sandbox     /model
 /tmp/gx/w     no sandbox     gemini-2.5-flash
`;

export const PERMISSION = `
  ▗▟▀    Authenticated with gemini-api-key /auth
 ▝▀

Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results

 > hello there? really! ok

✦ STUB-REPLY len=23 sha=ecc2d04b2da7 head=hello there? really! ok

 > stub:hang

ℹ Request cancelled.

 > stub:bash touch approve-me.txt

╭────────────────────────────────────────╮
│ ? Shell  touch approve-me.txt  │
│ ╭────────────────────────────────────────╮ │
│ │ touch approve-me.txt  │ │
│ ╰────────────────────────────────────────╯ │
│ Allow execution of [Shell]?  │
│  │
│ ● 1. Allow once  │
│   2. Allow for this session  │
│   3. No, suggest changes (esc)  │
╰────────────────────────────────────────╯
`;

export const MODEL_NOT_FOUND = `

 > stub:bash touch approve-me.txt

╭────────────────────────────────────────╮
│ ✓  Shell touch approve-me.txt  │
│  │
│  │
╰────────────────────────────────────────╯

✦ STUB-TOOL-RESULT is_error=false len=81 sha=746ca55a595b head=<untrusted_context>\\nOutput: (empty)\\nProc

 > stub:error 400

✕ [API Error: {"error":{"code":400,"message":"stub error 400","status":"INVALID_ARGUMENT"}}]

ℹ This request failed. Press F12 for diagnostics, or run /settings and change "Error Verbosity" to full for full details.

 > stub:error 404

╭────────────────────────────────────────╮
│  │
│ Model "gemini-2.5-flash" was not found or is invalid.  │
│ /model to switch models.  │
│  │
│  │
│ ● 1. Keep trying  │
│   2. Stop  │
│  │
│  │
╰────────────────────────────────────────╯
`;

export const QUOTA = `
 ▝▜▄     Gemini CLI v0.61.0
   ▝▜▄
  ▗▟▀    Authenticated with gemini-api-key /auth
 ▝▀

Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results

 > quota please

╭────────────────────────────────────────╮
│  │
│ Usage limit reached for gemini-2.5-flash.  │
│ /stats model for usage details  │
│ /model to switch models.  │
│  │
│  │
│ ● 1. Keep trying  │
│   2. Stop  │
│  │
│  │
╰────────────────────────────────────────╯
`;

export const AFTER_ESCAPE = `
 ▝▜▄     Gemini CLI v0.61.0
   ▝▜▄
  ▗▟▀    Authenticated with gemini-api-key /auth
 ▝▀

Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results

 > hello there? really! ok

✦ STUB-REPLY len=23 sha=ecc2d04b2da7 head=hello there? really! ok

 > stub:hang

ℹ Request cancelled.

  Executing Hook: umbel-AfterAgent     ? for shortcuts
────────────────────────────────────────
 Shift+Tab to accept edits

 >   Type your message or @path/to/file

 workspace (/directory)     sandbox     /model
 /tmp/gx/w     no sandbox     gemini-2.5-flash
`;

export const AFTER_API_ERROR = `
✦ STUB-REPLY len=23 sha=ecc2d04b2da7 head=hello there? really! ok

 > stub:hang

ℹ Request cancelled.

 > stub:bash touch approve-me.txt

╭────────────────────────────────────────╮
│ ✓  Shell touch approve-me.txt  │
│  │
│  │
╰────────────────────────────────────────╯

✦ STUB-TOOL-RESULT is_error=false len=81 sha=746ca55a595b head=<untrusted_context>\\nOutput: (empty)\\nProc

 > stub:error 400

✕ [API Error: {"error":{"code":400,"message":"stub error 400","status":"INVALID_ARGUMENT"}}]

ℹ This request failed. Press F12 for diagnostics, or run /settings and change "Error Verbosity" to full for full details.

  Executing Hooks: umbel-BeforeAgent, umbel-AfterAgent     ? for shortcuts
────────────────────────────────────────
 Shift+Tab to accept edits

 >   Type your message or @path/to/file

 workspace (/directory)     sandbox     /model
 /tmp/gx/w     no sandbox     gemini-2.5-flash
`;

export const READY_YOLO = `
  Executing Hook: umbel-SessionStart     ? for shortcuts
────────────────────────────────────────
 YOLO Ctrl+Y

 *   Type your message or @path/to/file

 workspace (/directory)     sandbox     /model
 /tmp/gx/w     no sandbox     gemini-2.5-flash
`;

export const SHELL_MODE = `
  Executing Hook: umbel-SessionStart     ? for shortcuts
────────────────────────────────────────
  shell mode enabled (esc to disable)

 !   Type your shell command

 workspace (/directory)     sandbox     /model
 /tmp/gx/w     no sandbox     gemini-2.5-flash
`;

export const TRUST = `
 ▝▜▄     ▗█▀▀▜▙▝█▛▀▀▌▜██▖▟██▘▜█▘▜██▖▝█▛▝█▛
   ▝▜▄    █▌     █▙▟  ▐█▝█▛▐█ ▐█ ▐█▝█▖█▌ █▌
  ▗▟▀     ▜▙ ▝█▛ █▌▝ ▖▐█   ▐█ ▐█ ▐█ ▝██▌ █▌
 ▝▀     ▀▀▀▀▘▝▀▀▀▀▘▀▀▘  ▀▀▘▀▀▘▀▀▘ ▝▀▀▝▀▀

 Gemini CLI v0.61.0

Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results

ℹ Skipping project agents due to untrusted folder. To enable, ensure that the project root is trusted.

⚠  Warning: True color (24-bit) support not detected. Using a terminal with true color enabled will result in a better visual experience.

 ╭────────────────────────────────────────╮
 │  │
 │ Do you trust the files in this folder?  │
 │  │
 │ Trusting a folder allows Gemini CLI to load its local configurations, including custom commands, hooks, MCP servers, agent skills, and settings. These  │
 │ configurations could execute code on your behalf or change the behavior of the CLI.  │
 │  │
 │  │
 │ ● 1. Trust folder (w)  │
 │   2. Trust parent folder (gx)  │
 │   3. Don't trust  │
 │  │
 ╰────────────────────────────────────────╯
`;

export const AUTH_CHOICE = `

 Gemini CLI v0.61.0

Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results

⚠  Warning: True color (24-bit) support not detected. Using a terminal with true color enabled will result in a better visual experience.

╭────────────────────────────────────────╮
│  │
│ ? Get started  │
│  │
│   How would you like to authenticate for this project?  │
│  │
│     1. Sign in with Google  │
│   ● 2. Use Gemini API Key  │
│     3. Vertex AI  │
│  │
│   Existing API key detected (GEMINI_API_KEY). Select "Gemini API Key" option to use it.  │
│  │
│   (Use Enter to select)  │
│  │
│   Terms of Services and Privacy Notice for Gemini CLI  │
│  │
│   https://geminicli.com/docs/resources/tos-privacy/  │
│  │
╰────────────────────────────────────────╯
`;

export const API_KEY_BOX = `
 ▝▜▄     Gemini CLI v0.61.0
   ▝▜▄
  ▗▟▀    Authenticated with gemini-api-key /auth
 ▝▀

Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results

⚠  Warning: True color (24-bit) support not detected. Using a terminal with true color enabled will result in a better visual experience.

╭────────────────────────────────────────╮
│  │
│ Enter Gemini API Key  │
│  │
│ Please enter your Gemini API key. It will be securely stored in your system keychain.  │
│ You can get an API key from https://aistudio.google.com/app/apikey  │
│  │
│ ╭────────────────────────────────────────╮ │
│ │ Paste your API key here  │ │
│ ╰────────────────────────────────────────╯ │
│  │
│ (Press Enter to submit, Esc to cancel, Ctrl+C to clear stored key)  │
│  │
╰────────────────────────────────────────╯
`;

export const OAUTH_URL = `
Please visit the following URL to authorize the application:

https://accounts.google.com/o/oauth2/v2/auth?redirect_uri=https%3A%2F%2Fcodeassist.google.com%2Fauthcode&access_type=offline&scope=https%3A%2F%2Fwww.googleapis.
com%2Fauth%2Fcloud-platform%20https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fuserinfo.email%20https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fuserinfo.profile&code_challen
ge_method=S256&code_challenge=UxiDV8lCFdDPY0ZCBxmQzvqAffg96Yh3eqlREXqGiAo&state=624bbbb307c9ef88664a382ec8b9bd75fa5aa06a2bcc6f280ffa1d204ee35bd0&response_type=c
ode&client_id=681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com

Enter the authorization code:
`;

export const DUPLICATE_SESSION = `
Error starting session: Session ID "75549a0b-d9bb-4bce-a5c6-5af4bd18769f" already exists. Use --resume to resume it, or provide a different ID.
EXITED=42
`;

/**
 * One session's transcript (session_context, tokens and resultDisplay shortened): "first plain";
 * "stub:bash touch t1.txt" (approved); "stub:hang" (Escape); "stub:error 400"; "stub:bash touch
 * denied.txt" (Escape on the permission box: gemini re-appends the history under new ids, then
 * `$set`); "last plain".
 */
export const TRANSCRIPT_LINES: readonly string[] = [
  '{"sessionId":"5c874700-efdf-452c-9c6d-20fe9b1ae72e","projectHash":"152c4e37…","startTime":"2026-11-29T22:45:47.929Z","lastUpdated":"2026-11-29T22:45:47.929Z","kind":"main"}',
  '{"$set":{"messages":[{"id":"d04923d38bb0f6017037e74183378ef4","timestamp":"2026-11-29T22:45:47.930Z","type":"user","content":[{"text":"<session_context>\\nThis is the Gemini CLI. …\\n</session_context>"}]}],"lastUpdated":"2026-11-29T22:45:47.930Z"}}',
  '{"id":"4f0575de-a98e-47ac-bb03-0c05e687cd85","timestamp":"2026-11-29T22:45:49.139Z","type":"user","content":[{"text":"first plain"}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:45:49.139Z"}}',
  '{"id":"995071c1-f904-4f50-bdc4-62d8ece15a4c","timestamp":"2026-11-29T22:45:49.637Z","type":"gemini","content":"STUB-REPLY len=11 sha=42dea59809d1 head=first plain","model":"gemini-2.5-flash"}',
  '{"$set":{"lastUpdated":"2026-11-29T22:45:49.637Z"}}',
  '{"id":"c33c2263-60d0-4c3e-817a-d84546141442","timestamp":"2026-11-29T22:45:51.079Z","type":"user","content":[{"text":"stub:bash touch t1.txt"}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:45:51.079Z"}}',
  '{"id":"feb51d44-57ee-483c-85d7-606674c3f35a","timestamp":"2026-11-29T22:45:51.340Z","type":"gemini","content":"","model":"gemini-2.5-flash"}',
  '{"$set":{"lastUpdated":"2026-11-29T22:45:51.340Z"}}',
  '{"id":"feb51d44-57ee-483c-85d7-606674c3f35a","timestamp":"2026-11-29T22:45:51.340Z","type":"gemini","content":"","model":"gemini-2.5-flash","toolCalls":[{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","args":{"command":"touch t1.txt","description":"stub bash"},"result":[{"functionResponse":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","response":{"output":"<untrusted_context>\\nOutput: (empty)\\nProcess Group PGID: 20454\\n</untrusted_context>"}}}],"status":"success","timestamp":"2026-11-29T22:45:55.525Z"}]}',
  '{"id":"383c4df5-c1ff-495a-a9db-a9f574bc2bea","timestamp":"2026-11-29T22:45:55.540Z","type":"user","content":[{"functionResponse":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","response":{"output":"<untrusted_context>\\nOutput: (empty)\\nProcess Group PGID: 20454\\n</untrusted_context>"}}}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:45:55.540Z"}}',
  '{"id":"87098c0a-10b9-4593-b5f6-acfff859ed9e","timestamp":"2026-11-29T22:45:55.834Z","type":"gemini","content":"STUB-TOOL-RESULT is_error=false len=82 sha=b630b4cc6b2d head=<untrusted_context>\\\\nOutput: (empty)\\\\nProc","model":"gemini-2.5-flash"}',
  '{"$set":{"lastUpdated":"2026-11-29T22:45:55.834Z"}}',
  '{"id":"02f91942-0ed0-4a8f-a70b-fe20b25d748b","timestamp":"2026-11-29T22:45:56.724Z","type":"user","content":[{"text":"stub:hang"}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:45:56.724Z"}}',
  '{"id":"5c5a71c9-26d9-4b6d-8405-01ca0cec5094","timestamp":"2026-11-29T22:45:57.592Z","type":"info","content":"Request cancelled."}',
  '{"$set":{"lastUpdated":"2026-11-29T22:45:57.593Z"}}',
  '{"$set":{"messages":[{"id":"d04923d38bb0f6017037e74183378ef4","timestamp":"2026-11-29T22:45:47.930Z","type":"user","content":[{"text":"<session_context>\\nThis is the Gemini CLI. …\\n</session_context>"}]},{"id":"4f0575de-a98e-47ac-bb03-0c05e687cd85","timestamp":"2026-11-29T22:45:49.139Z","type":"user","content":[{"text":"first plain"}]},{"id":"995071c1-f904-4f50-bdc4-62d8ece15a4c","timestamp":"2026-11-29T22:45:49.637Z","type":"gemini","content":[{"text":"STUB-REPLY len=11 sha=42dea59809d1 head=first plain"}],"model":"gemini-2.5-flash"},{"id":"c33c2263-60d0-4c3e-817a-d84546141442","timestamp":"2026-11-29T22:45:51.079Z","type":"user","content":[{"text":"stub:bash touch t1.txt"}]},{"id":"feb51d44-57ee-483c-85d7-606674c3f35a","timestamp":"2026-11-29T22:45:51.340Z","type":"gemini","content":[{"functionCall":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","args":{"command":"touch t1.txt","description":"stub bash"}}}],"model":"gemini-2.5-flash","toolCalls":[{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","args":{"command":"touch t1.txt","description":"stub bash"},"result":[{"functionResponse":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","response":{"output":"<untrusted_context>\\nOutput: (empty)\\nProcess Group PGID: 20454\\n</untrusted_context>"}}}],"status":"success","timestamp":"2026-11-29T22:45:55.525Z"}]},{"id":"383c4df5-c1ff-495a-a9db-a9f574bc2bea","timestamp":"2026-11-29T22:45:55.540Z","type":"user","content":[{"functionResponse":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","response":{"output":"<untrusted_context>\\nOutput: (empty)\\nProcess Group PGID: 20454\\n</untrusted_context>"}}}]},{"id":"87098c0a-10b9-4593-b5f6-acfff859ed9e","timestamp":"2026-11-29T22:45:55.834Z","type":"gemini","content":[{"text":"STUB-TOOL-RESULT is_error=false len=82 sha=b630b4cc6b2d head=<untrusted_context>\\\\nOutput: (empty)\\\\nProc"}],"model":"gemini-2.5-flash"}],"lastUpdated":"2026-11-29T22:45:57.605Z"}}',
  '{"id":"9ba4599a-ddaf-4ae7-91eb-9c1a49f0f0ff","timestamp":"2026-11-29T22:45:59.978Z","type":"user","content":[{"text":"stub:error 400"}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:45:59.979Z"}}',
  '{"$set":{"messages":[{"id":"d04923d38bb0f6017037e74183378ef4","timestamp":"2026-11-29T22:45:47.930Z","type":"user","content":[{"text":"<session_context>\\nThis is the Gemini CLI. …\\n</session_context>"}]},{"id":"4f0575de-a98e-47ac-bb03-0c05e687cd85","timestamp":"2026-11-29T22:45:49.139Z","type":"user","content":[{"text":"first plain"}]},{"id":"995071c1-f904-4f50-bdc4-62d8ece15a4c","timestamp":"2026-11-29T22:45:49.637Z","type":"gemini","content":[{"text":"STUB-REPLY len=11 sha=42dea59809d1 head=first plain"}],"model":"gemini-2.5-flash"},{"id":"c33c2263-60d0-4c3e-817a-d84546141442","timestamp":"2026-11-29T22:45:51.079Z","type":"user","content":[{"text":"stub:bash touch t1.txt"}]},{"id":"feb51d44-57ee-483c-85d7-606674c3f35a","timestamp":"2026-11-29T22:45:51.340Z","type":"gemini","content":[{"functionCall":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","args":{"command":"touch t1.txt","description":"stub bash"}}}],"model":"gemini-2.5-flash","toolCalls":[{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","args":{"command":"touch t1.txt","description":"stub bash"},"result":[{"functionResponse":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","response":{"output":"<untrusted_context>\\nOutput: (empty)\\nProcess Group PGID: 20454\\n</untrusted_context>"}}}],"status":"success","timestamp":"2026-11-29T22:45:55.525Z"}]},{"id":"383c4df5-c1ff-495a-a9db-a9f574bc2bea","timestamp":"2026-11-29T22:45:55.540Z","type":"user","content":[{"functionResponse":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","response":{"output":"<untrusted_context>\\nOutput: (empty)\\nProcess Group PGID: 20454\\n</untrusted_context>"}}}]},{"id":"87098c0a-10b9-4593-b5f6-acfff859ed9e","timestamp":"2026-11-29T22:45:55.834Z","type":"gemini","content":[{"text":"STUB-TOOL-RESULT is_error=false len=82 sha=b630b4cc6b2d head=<untrusted_context>\\\\nOutput: (empty)\\\\nProc"}],"model":"gemini-2.5-flash"}],"lastUpdated":"2026-11-29T22:46:00.180Z"}}',
  '{"id":"fc73dc3e-54cb-4304-9549-60d81c6b5e88","timestamp":"2026-11-29T22:46:00.245Z","type":"error","content":"[API Error: {\\"error\\":{\\"code\\":400,\\"message\\":\\"stub error 400\\",\\"status\\":\\"INVALID_ARGUMENT\\"}}]"}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:00.245Z"}}',
  '{"id":"b3d8ab1f-f8e4-46ea-a268-465fa2ccde33","timestamp":"2026-11-29T22:46:02.068Z","type":"user","content":[{"text":"stub:bash touch denied.txt"}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:02.068Z"}}',
  '{"id":"9bba7514-3624-4a6f-b974-e71422d8d41d","timestamp":"2026-11-29T22:46:02.248Z","type":"gemini","content":"","model":"gemini-2.5-flash"}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:02.249Z"}}',
  '{"id":"9bba7514-3624-4a6f-b974-e71422d8d41d","timestamp":"2026-11-29T22:46:02.248Z","type":"gemini","content":"","model":"gemini-2.5-flash","toolCalls":[{"id":"run_shell_command__stub_call_48_0","name":"run_shell_command","args":{"command":"touch denied.txt","description":"stub bash"},"result":[{"functionResponse":{"id":"run_shell_command__stub_call_48_0","name":"run_shell_command","response":{"error":"[Operation Cancelled] Reason: User denied execution."}}}],"status":"cancelled","timestamp":"2026-11-29T22:46:04.339Z"}]}',
  '{"id":"15511728-50a5-4a4e-bd20-cf594b795cec","timestamp":"2026-11-29T22:46:04.340Z","type":"info","content":"Request cancelled."}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:04.340Z"}}',
  '{"id":"28433f72-5d51-4ad9-91fd-21dc01007c5e","timestamp":"2026-11-29T22:46:04.345Z","type":"user","content":[{"text":"<session_context>\\nThis is the Gemini CLI. …\\n</session_context>"},{"text":"first plain"}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:04.345Z"}}',
  '{"id":"38fec049-9715-46e3-8a23-53c8226f7755","timestamp":"2026-11-29T22:46:04.345Z","type":"gemini","content":[{"text":"STUB-REPLY len=11 sha=42dea59809d1 head=first plain"}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:04.345Z"}}',
  '{"id":"66f58a0c-93f0-4c87-b8a5-b67145008afe","timestamp":"2026-11-29T22:46:04.345Z","type":"user","content":[{"text":"stub:bash touch t1.txt"}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:04.345Z"}}',
  '{"id":"f884914f-246b-4172-8346-e21b552542ec","timestamp":"2026-11-29T22:46:04.345Z","type":"gemini","content":[{"functionCall":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","args":{"command":"touch t1.txt","description":"stub bash"}}}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:04.345Z"}}',
  '{"id":"9da9a5b9-bd47-4b92-a7c0-55984c656b80","timestamp":"2026-11-29T22:46:04.351Z","type":"user","content":[{"functionResponse":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","response":{"output":"<untrusted_context>\\nOutput: (empty)\\nProcess Group PGID: 20454\\n</untrusted_context>"}}}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:04.351Z"}}',
  '{"id":"85cebcec-6bae-4cd4-a933-49723bd26712","timestamp":"2026-11-29T22:46:04.351Z","type":"gemini","content":[{"text":"STUB-TOOL-RESULT is_error=false len=82 sha=b630b4cc6b2d head=<untrusted_context>\\\\nOutput: (empty)\\\\nProc"}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:04.351Z"}}',
  '{"$set":{"messages":[{"id":"28433f72-5d51-4ad9-91fd-21dc01007c5e","timestamp":"2026-11-29T22:46:04.345Z","type":"user","content":[{"text":"<session_context>\\nThis is the Gemini CLI. …\\n</session_context>"},{"text":"first plain"}]},{"id":"38fec049-9715-46e3-8a23-53c8226f7755","timestamp":"2026-11-29T22:46:04.345Z","type":"gemini","content":[{"text":"STUB-REPLY len=11 sha=42dea59809d1 head=first plain"}]},{"id":"66f58a0c-93f0-4c87-b8a5-b67145008afe","timestamp":"2026-11-29T22:46:04.345Z","type":"user","content":[{"text":"stub:bash touch t1.txt"}]},{"id":"f884914f-246b-4172-8346-e21b552542ec","timestamp":"2026-11-29T22:46:04.345Z","type":"gemini","content":[{"functionCall":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","args":{"command":"touch t1.txt","description":"stub bash"}}}]},{"id":"9da9a5b9-bd47-4b92-a7c0-55984c656b80","timestamp":"2026-11-29T22:46:04.351Z","type":"user","content":[{"functionResponse":{"id":"run_shell_command__stub_call_44_0","name":"run_shell_command","response":{"output":"<untrusted_context>\\nOutput: (empty)\\nProcess Group PGID: 20454\\n</untrusted_context>"}}}]},{"id":"85cebcec-6bae-4cd4-a933-49723bd26712","timestamp":"2026-11-29T22:46:04.351Z","type":"gemini","content":[{"text":"STUB-TOOL-RESULT is_error=false len=82 sha=b630b4cc6b2d head=<untrusted_context>\\\\nOutput: (empty)\\\\nProc"}]}],"lastUpdated":"2026-11-29T22:46:04.351Z"}}',
  '{"id":"025d2bd5-b7e4-45c9-90d9-142f93c7a6fd","timestamp":"2026-11-29T22:46:07.122Z","type":"user","content":[{"text":"last plain"}]}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:07.122Z"}}',
  '{"id":"bbca613e-3ec9-4f06-8259-025f0b7e1450","timestamp":"2026-11-29T22:46:07.249Z","type":"gemini","content":"STUB-REPLY len=10 sha=6736ad2e43bf head=last plain","model":"gemini-2.5-flash"}',
  '{"$set":{"lastUpdated":"2026-11-29T22:46:07.250Z"}}',
];

/** BeforeAgent `timestamp`s of those turns (the first two are 0.2 s before their user line). */
export const TURN_KEYS = {
  firstPlain: "2026-11-29T22:45:48.940Z",
  tool: "2026-11-29T22:45:50.880Z",
  hang: "2026-11-29T22:45:56.360Z",
  error400: "2026-11-29T22:45:59.723Z",
  denied: "2026-11-29T22:46:01.850Z",
  lastPlain: "2026-11-29T22:46:06.951Z",
} as const;

/** `--include-directories <dir>` in the TUI: the box before SessionStart (0.61.0, trimmed). */
export const INCLUDE_TRUST = `
⚠  Warning: True color (24-bit) support not detected. Using a terminal with true color enabled will result in a better visual experience.
 ╭────────────────────────────────────────╮
 │  │
 │ Do you trust the following folders being added to this workspace?  │
 │ - /tmp/umbel-gemini-74jlIh/extra-dir  │
 │ Trusting a folder allows Gemini to read and perform auto-edits when in auto-approval mode. This is a security feature to prevent accidental execution in   │
 │ untrusted directories.  │
 │  │
 │ ● 1. Yes  │
 │   2. Yes, and remember the directories as trusted  │
 │   3. No  │
 │  │
 ╰────────────────────────────────────────╯
`;
