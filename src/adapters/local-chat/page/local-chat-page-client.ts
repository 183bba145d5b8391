// The local chat page's script (type-stripped and served by local-chat-page.ts): sends each line
// typed in its form to POST /local/chat/say, and says what the host answered. The overlay beside
// it shows the line, and the bot's reply, as the stream would.
//
// A line leaves the input as it is sent, so the next one can be typed at once, and lines go out
// one at a time in the order they were sent: the answer to one never erases a line typed since,
// and a later line never reaches the host first. A refused line comes back to the input when
// nothing was typed there since.

const form = document.querySelector<HTMLFormElement>('#say')!;
const text = form.querySelector<HTMLInputElement>('[name=text]')!;
const login = form.querySelector<HTMLInputElement>('[name=login]')!;
const role = form.querySelector<HTMLSelectElement>('[name=role]')!;
const status = document.querySelector<HTMLElement>('#status')!;
/** The host's limit (CHAT_MESSAGE_MAX_LENGTH), said by the page rather than enforced by a maxlength that cuts a pasted line short. */
const maxLength = Number(text.dataset.maxLength);

interface Answer {
  message?: string;
  errors?: Record<string, string[]>;
}

/** The host's message, and each field error it does not already say, in one line. */
function describe(answer: Answer | null, httpStatus: number): string {
  // The host restarted without its local chat (the route is gone): Fastify's "Not Found." said nothing.
  if (httpStatus === 404) return 'The host has no local chat to send to (404): it runs with localChat.enabled: false (set it to true and restart chatskin).';
  if (answer === null || typeof answer.message !== 'string') return `The host answered ${httpStatus}.`;
  const details = Object.values(answer.errors ?? {}).flat();
  return [...new Set([answer.message, ...details])].join(' ');
}

function show(shown: string, failed: boolean, line: string): void {
  status.textContent = shown;
  status.dataset.state = failed ? 'error' : 'sent';
  if (failed && text.value === '') text.value = line;
  text.focus();
}

async function send(body: { text: string; login: string | null; role: string }): Promise<void> {
  let shown: string;
  let failed = true;
  try {
    const response = await fetch(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json().catch(() => null)) as Answer | null;
    shown = describe(answer, response.status);
    failed = !response.ok;
  } catch {
    shown = 'The host did not answer: is chatskin still running?';
  }
  show(shown, failed, body.text);
}

let sending: Promise<void> = Promise.resolve();

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const line = text.value;
  const length = line.trim().length;
  if (Number.isInteger(maxLength) && length > maxLength) {
    show(`A chat line is at most ${maxLength} characters, as on Twitch; this one has ${length}.`, true, line);
    return;
  }
  const body = { text: line, login: login.value.trim() || null, role: role.value };
  text.value = '';
  text.focus();
  sending = sending.then(() => send(body));
});

document.body.dataset.status = 'ready';
