import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { planHost, planHosts } from "../../../src/core/hosts/plan.ts";
import { parseUserConfig } from "../../../src/core/worker/user-config.ts";

/** [hosts.NAME] tables: an ssh destination, optionally the remote umbel and the ssh command. */

describe("hosts in the config file", () => {
  test("the issue's example, beside an account", () => {
    const text = `[hosts.box]
ssh = "ci@box.internal"            # anything ssh accepts
umbel = "~/.local/bin/umbel"

[hosts.gpu-1]
ssh = "gpu"
ssh_command = "ssh -F '/etc/umbel ssh.cfg'"

[accounts.work]
provider = "claude"
`;
    expect(parseUserConfig(text, "/h/config.toml")).toEqual({
      hosts: {
        box: { ssh: "ci@box.internal", umbel: "~/.local/bin/umbel" },
        "gpu-1": { ssh: "gpu", ssh_command: "ssh -F '/etc/umbel ssh.cfg'" },
      },
      accounts: { work: { provider: "claude" } },
    });
  });

  test.each([
    [
      '[hosts.Box]\nssh = "b"\n',
      "/h/c.toml:1: [hosts.Box]: a host name is 1-63 of a-z 0-9 - and starts with a letter or digit",
    ],
    ['[hosts]\nssh = "b"\n', "/h/c.toml:1: a host is a table [hosts.NAME], e.g. [hosts.box]"],
    [
      '[hosts.box]\numbel = "u"\n',
      '/h/c.toml:1: [hosts.box] needs its ssh destination, e.g. ssh = "user@box.internal"',
    ],
    [
      '\n[hosts.box]\nssh = "b"\nshh_command = "ssh"\n',
      "/h/c.toml:4: [hosts.box] knows ssh, umbel, ssh_command (not shh_command); did you mean ssh_command?",
    ],
    ['[hosts.box]\nssh = ["b"]\n', "/h/c.toml:2: [hosts.box] ssh is a quoted string"],
    [
      '[hosts.box]\nssh = ""\n',
      "/h/c.toml:2: [hosts.box] ssh: Too small: expected string to have >=1 characters",
    ],
  ])("%j is refused at its line", (text, message) => {
    let error: unknown;
    try {
      parseUserConfig(text, "/h/c.toml");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(message);
  });
});

describe("planHost", () => {
  const hosts = {
    box: { ssh: "ci@box" },
    gpu: { ssh: "gpu", umbel: "/opt/umbel", ssh_command: "ssh -p 2222" },
  };

  test("defaults: ssh, umbel on the remote PATH, the master under the state root", () => {
    expect(planHost(hosts, "box", {}, "/s")).toEqual({
      name: "box",
      destination: "ci@box",
      ssh: ["ssh"],
      umbel: "umbel",
      controlDir: "/s/ssh",
    });
  });

  test("ssh_command is split as a shell would; UMBEL_SSH_COMMAND wins over it (as GIT_SSH_COMMAND)", () => {
    expect(planHost(hosts, "gpu", {}, "/s").ssh).toEqual(["ssh", "-p", "2222"]);
    expect(planHost(hosts, "gpu", { UMBEL_SSH_COMMAND: "ssh -F '/t/a b'" }, "/s").ssh).toEqual([
      "ssh",
      "-F",
      "/t/a b",
    ]);
    expect(planHost(hosts, "gpu", { UMBEL_SSH_COMMAND: "  " }, "/s").ssh).toEqual(["ssh", "-p", "2222"]);
  });

  test("an unknown host is a usage error with the known ones and a near miss", () => {
    expect(() => planHost(hosts, "bx", {}, "/s")).toThrow(
      "no host bx in config.toml (hosts: box, gpu); did you mean box?",
    );
    expect(() => planHost(undefined, "box", {}, "/s")).toThrow("config.toml declares no [hosts.NAME]");
    expect(planHosts(hosts, {}, "/s").map((h) => h.name)).toEqual(["box", "gpu"]);
  });
});
