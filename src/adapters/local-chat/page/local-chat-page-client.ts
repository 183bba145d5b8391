// The local chat page's script (type-stripped and served by local-chat-page.ts): sends each line
// typed in its form to POST /local/chat/say, and says what the host answered. The overlay beside
// it shows the line, and the bot's reply, as the stream would.

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
  if (answer === null || typeof answer.message !== 'string') return `The host answered ${httpStatus}.`;
  const details = Object.values(answer.errors ?? {}).flat();
  return [...new Set([answer.message, ...details])].join(' ');
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const length = text.value.trim().length;
  if (Number.isInteger(maxLength) && length > maxLength) {
    status.textContent = `A chat line is at most ${maxLength} characters, as on Twitch; this one has ${length}.`;
    status.dataset.state = 'error';
    text.focus();
    return;
  }
  const body = { text: text.value, login: login.value.trim() || null, role: role.value };
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
    if (response.ok) text.value = '';
  } catch {
    shown = 'The host did not answer: is chatskin still running?';
  }
  status.textContent = shown;
  status.dataset.state = failed ? 'error' : 'sent';
  text.focus();
});

document.body.dataset.status = 'ready';
