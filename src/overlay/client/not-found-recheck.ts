// The one script of the "Overlay not found" page (page.ts): OBS keeps a browser source open for
// days, and one whose address named no overlay (a wrong or old token, chatskin started on another
// database) would stay that way until refreshed by hand. The page asks for its own address now
// and then (HEAD, never from a cache), backing off to once a minute, and reloads itself once the
// address names an overlay again, which then loads as the overlay page.
import { askOwnAddress } from './own-address.ts';

const FIRST_CHECK_MS = 1_000;
const MAX_CHECK_MS = 60_000;

let waitMs = FIRST_CHECK_MS;

function scheduleCheck(): void {
  const delay = Math.min(waitMs * (0.75 + Math.random() * 0.5), MAX_CHECK_MS);
  waitMs = Math.min(waitMs * 2, MAX_CHECK_MS);
  setTimeout(check, delay);
}

function check(): void {
  askOwnAddress().then((response) => {
    if (response.ok) location.reload();
    else scheduleCheck();
  }, scheduleCheck); // the server cannot be reached: ask again later
}

scheduleCheck();
