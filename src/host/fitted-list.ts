// A listing for one chat message: names joined by ", ", as many as fit in `room` characters (and
// at most `most`), then "+N more" for the rest, so a long list never spills into a second line.
// Plugins size `room` from what Twitch allows (500) less the rest of their reply.

/** "a, b, c +4 more"; "+7 more" when not even the first name fits; "" for no names. */
export function fittedList(names: readonly string[], room: number, most = Infinity): string {
  let text = '';
  let shown = 0;
  for (const name of names.slice(0, most)) {
    const next = shown === 0 ? name : `${text}, ${name}`;
    const left = names.length - shown - 1;
    if (next.length + (left === 0 ? 0 : ` +${left} more`.length) > room) break;
    text = next;
    shown += 1;
  }
  const left = names.length - shown;
  if (left === 0) return text;
  return shown === 0 ? `+${left} more` : `${text} +${left} more`;
}
