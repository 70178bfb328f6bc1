import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox, UMBEL } from "./sandbox.ts";

/**
 * A real OpenSSH server on 127.0.0.1 at a free port, as the current user: a host key and a client
 * key made here (ssh-keygen), its own sshd_config (the test's authorized_keys, no PAM, no strict
 * modes, its pid file in the test dir) and a client config (`ssh -F`: ssh reads the passwd home's
 * ~/.ssh/config otherwise, never this test's HOME). `stop` ends the listener and every connection it
 * accepted, so a master connection dies with it; `start` brings it back on the same port.
 */
export type Sshd = {
  readonly dir: string;
  readonly port: number;
  /** UMBEL_SSH_COMMAND for a local umbel: ssh with this test's client config. */
  readonly sshCommand: string;
  /** The client config's alias of this server. */
  readonly alias: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  dispose(): Promise<void>;
};

const SSHD = ["/usr/sbin/sshd", "/usr/local/sbin/sshd"].find((p) => existsSync(p)) ?? null;

/** Whether this machine has an sshd (Debian's openssh-server; .ci/run installs it). */
export function hasSshd(): boolean {
  return SSHD !== null && Bun.which("ssh") !== null && Bun.which("ssh-keygen") !== null;
}

/**
 * `sessionEnv`: every session of the test's key gets these (authorized_keys `environment=`, with
 * PermitUserEnvironment), so a program run there without the wrapper (an installed umbel's doctor)
 * sees the remote sandbox's environment, not the passwd home's. Measured on OpenSSH 9.2: the client's
 * SetEnv (AcceptEnv on the server) set UMBEL_HOME but not HOME, which sshd sets after it; the key's
 * environment= sets HOME too.
 */
async function startSshd(alias = "box", sessionEnv: Readonly<Record<string, string>> = {}): Promise<Sshd> {
  if (SSHD === null) throw new Error("no sshd: apt-get install openssh-server");
  const dir = await mkdtemp(join(tmpdir(), "umbel-sshd-"));
  await chmod(dir, 0o700);
  // The passwd entry's name (Bun's os.userInfo() says "unknown" in some containers).
  const user = Bun.spawnSync(["id", "-un"]).stdout.toString().trim();
  const keygen = (file: string) =>
    Bun.spawnSync(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "umbel-test", "-f", join(dir, file)]);
  keygen("host_key");
  keygen("client_key");
  const keyEnv = Object.entries(sessionEnv)
    .map(([k, v]) => `environment="${quoteKeyOption(`${k}=${v}`)}"`)
    .join(",");
  await writeFile(
    join(dir, "authorized_keys"),
    `${keyEnv ? `${keyEnv} ` : ""}${await readFile(join(dir, "client_key.pub"), "utf8")}`,
    { mode: 0o600 },
  );
  const port = await freePort();
  const hostKey = (await readFile(join(dir, "host_key.pub"), "utf8")).trim().split(" ").slice(0, 2).join(" ");
  await writeFile(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`);
  await writeFile(
    join(dir, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host_key")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "StrictModes no",
      "UsePAM no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "PermitRootLogin prohibit-password",
      `AllowUsers ${user}`,
      "LogLevel ERROR",
      ...(keyEnv ? ["PermitUserEnvironment yes"] : []),
      "",
    ].join("\n"),
  );
  await writeFile(
    join(dir, "ssh_config"),
    [
      `Host ${alias}`,
      "  HostName 127.0.0.1",
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${join(dir, "client_key")}`,
      "  IdentitiesOnly yes",
      `  UserKnownHostsFile ${join(dir, "known_hosts")}`,
      "  GlobalKnownHostsFile /dev/null",
      "  StrictHostKeyChecking yes",
      "  LogLevel ERROR",
      "",
    ].join("\n"),
  );
  // As root, sshd wants its privilege separation folder (Debian makes it at boot, a container may not).
  if (process.getuid?.() === 0) await mkdir("/run/sshd", { recursive: true, mode: 0o755 });
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  const sshCommand = `ssh -F ${join(dir, "ssh_config")}`;

  const sshd: Sshd = {
    dir,
    port,
    sshCommand,
    alias,
    async start() {
      proc = Bun.spawn([SSHD, "-D", "-e", "-f", join(dir, "sshd_config")], {
        stdin: "ignore",
        stdout: "ignore",
        stderr: Bun.file(join(dir, "sshd.log")),
      });
      const started = proc;
      await eventually(
        async () => {
          if (started.exitCode !== null)
            throw new Error(
              `sshd exited ${started.exitCode}: ${await readFile(join(dir, "sshd.log"), "utf8")}`,
            );
          return canConnect(port);
        },
        10_000,
        "sshd to listen",
      );
    },
    async stop() {
      const listener = proc;
      if (!listener) return;
      proc = null;
      // Each connection's sshd is the listener's child in a session of its own (setsid): ended by pid.
      for (const pid of childrenOf(listener.pid)) killPid(pid);
      listener.kill("SIGKILL");
      await listener.exited;
      await eventually(async () => !(await canConnect(port)), 5_000, "sshd to stop listening");
    },
    async dispose() {
      await sshd.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await sshd.start();
  return sshd;
}

/** An authorized_keys option's value: inside "…", a " is written \" (sshd(8) AUTHORIZED_KEYS FILE FORMAT). */
function quoteKeyOption(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
}

/** A port the kernel just handed out (then closed): free unless another process races for it. */
async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

async function canConnect(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function killPid(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** A local umbel and a "remote" one behind a real sshd (test/e2e/hosts.test.ts, bench/hosts.ts). */
export type HostPair = {
  readonly sshd: Sshd;
  /** The caller: UMBEL_SSH_COMMAND is the test's ssh, config.toml declares [hosts.<alias>]. */
  readonly local: Sandbox;
  /** The host's umbel: its own HOME, state root and tmux server, run through a wrapper script. */
  readonly remote: Sandbox;
  /** The wrapper: exports the remote sandbox's environment (sshd gives a session its own), cd's to its work dir. */
  readonly remoteUmbel: string;
  dispose(): Promise<void>;
};

/**
 * A host's umbel behind the sshd: a wrapper that exports `remote`'s environment (sshd gives a
 * session its own) and cd's to its work dir. Another sandbox's wrapper is a second host on one sshd.
 */
export async function writeRemoteUmbel(remote: Sandbox): Promise<string> {
  const file = join(remote.dir, "remote-umbel");
  const exports = Object.entries(remote.env)
    .map(([k, v]) => `export ${k}='${v.replaceAll("'", "'\\''")}'\n`)
    .join("");
  await writeFile(file, `#!/bin/sh\n${exports}cd '${remote.work}'\nexec '${UMBEL}' "$@"\n`);
  await chmod(file, 0o755);
  return file;
}

/**
 * `sessionEnv`: every ssh session on the host gets the remote sandbox's environment (the test key's
 * environment= options), so a program run there without the wrapper (`hosts install`'s umbel) is the sandbox's.
 */
export async function createHostPair(
  options: { alias?: string; localEnv?: Record<string, string>; sessionEnv?: boolean } = {},
): Promise<HostPair> {
  const alias = options.alias ?? "box";
  const remote = await createSandbox();
  const sshd = await startSshd(alias, options.sessionEnv ? remote.env : {});
  const local = await createSandbox({ env: { UMBEL_SSH_COMMAND: sshd.sshCommand, ...options.localEnv } });
  const remoteUmbel = await writeRemoteUmbel(remote);
  await mkdir(local.root, { recursive: true, mode: 0o700 });
  await writeFile(
    join(local.root, "config.toml"),
    `[hosts.${alias}]\nssh = "${alias}"\numbel = "${remoteUmbel}"\n`,
  );
  return {
    sshd,
    local,
    remote,
    remoteUmbel,
    async dispose() {
      await sshd.dispose();
      await Promise.all([local.dispose(), remote.dispose()]);
    },
  };
}
