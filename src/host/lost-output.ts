// A standard stream whose reader went away (`chatskin start | head` once head ended, a log
// shipper that exited) fails every later write with EPIPE, raised as the stream's 'error' event.
// With no listener that is an uncaught exception, and the host would stop for want of a
// terminal: the API, the overlay and the bot would go down with it. So from then on the stream's
// lines are dropped, and the host runs on.

/** Keeps `stream`'s write errors from stopping the process; `onLost` is told of the first one. */
export function runOnWithoutOutput(stream: NodeJS.WritableStream, onLost: (error: Error) => void = () => {}): void {
  let lost = false;
  stream.on('error', (error: Error) => {
    if (lost) return;
    lost = true;
    onLost(error);
  });
}
