import {
  type AgentContext,
  type ClientConnection,
  type ClientContext,
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
} from "@agentclientprotocol/sdk";
import { formatWorkerRef } from "../../core/hosts/schema.ts";
import type { Deps } from "../../core/ports.ts";
import { pipeAcpOnHost } from "../../operations/hosts/stream.ts";

/**
 * The sessions of `umbel acp` that live on hosts (`_meta.umbel.host`, or a `HOST:NAME` to load):
 * one connection per host to that host's own `umbel acp`, this face its client. The host's umbel
 * owns the workers; this face only relays, each session named `HOST:NAME` to its client as every
 * host's worker is named here. Updates and permission requests come back in the host's order.
 */
export type RemoteHosts = {
  agentOf(host: string): Promise<ClientContext>;
  /** Resolves once every update the host sent so far has reached the client. */
  flushed(host: string): Promise<void>;
  /** Ends every host's connection: each host's umbel kills the workers it spawned. */
  closeAll(): Promise<void>;
};

export function createRemoteHosts(
  deps: Deps,
  words: () => readonly string[],
  local: () => AgentContext,
): RemoteHosts {
  const hosts = new Map<string, Promise<{ connection: ClientConnection; exited: Promise<number> }>>();
  const chains = new Map<string, Promise<void>>();
  const connect = async (host: string) => {
    const pipe = await pipeAcpOnHost(deps, host, words());
    const named = (sessionId: string) => formatWorkerRef(host, sessionId);
    const app = client({ name: "umbel" })
      .onNotification("session/update", ({ params }) => {
        const next = (chains.get(host) ?? Promise.resolve()).then(() =>
          local().notify("session/update", { ...params, sessionId: named(params.sessionId) }),
        );
        chains.set(
          host,
          next.catch(() => undefined),
        );
      })
      .onRequest("session/request_permission", ({ params }) =>
        local().request("session/request_permission", { ...params, sessionId: named(params.sessionId) }),
      );
    const connection = app.connect(ndJsonStream(pipe.stdin, pipe.stdout));
    await connection.agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    return { connection, exited: pipe.exited };
  };
  return {
    async agentOf(host) {
      let found = hosts.get(host);
      if (!found) {
        found = connect(host);
        hosts.set(host, found);
        // A host that could not be reached is tried again by the next session.
        found.catch(() => hosts.delete(host));
      }
      return (await found).connection.agent;
    },
    flushed: (host) => chains.get(host) ?? Promise.resolve(),
    async closeAll() {
      await Promise.all(
        [...hosts.values()].map(async (pending) => {
          const open = await pending.catch(() => null);
          if (!open) return;
          open.connection.close();
          await open.exited.catch(() => undefined);
        }),
      );
    },
  };
}
