// Sends pre-planned SSE frames with their delays; shared by every dialect that streams.

/** One SSE frame and how long to wait before sending it. */
export interface Frame {
  data: string;
  delayMs: number;
}

export interface StreamEnding {
  /** Reset the connection after the last frame instead of ending the body cleanly. */
  cut?: boolean;
  headers?: Record<string, string>;
}

export function streamFrames(frames: readonly Frame[], ending: StreamEnding = {}): Response {
  const encoder = new TextEncoder();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const frame of frames) {
        if (frame.delayMs > 0) await Bun.sleep(frame.delayMs);
        if (cancelled) return;
        controller.enqueue(encoder.encode(frame.data));
      }
      // An errored body makes Bun drop the socket without the closing chunk: the client sees a reset.
      // The pause lets the partial frames reach the client before the reset.
      if (ending.cut) {
        await Bun.sleep(20);
        controller.error(new Error("stub model: stream cut on purpose"));
      } else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...ending.headers },
  });
}
