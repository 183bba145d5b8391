// The access tokens this process has had for one account (loaded, refreshed, taken from the token
// file): a file holding one of them is no news, not a token `chatskin twitch auth` saved. One is
// added per refresh, every few hours for as long as the host runs, so only the newest
// KNOWN_TOKENS_KEPT are kept. A token older than that has long expired; should the file hold one
// again (an old copy put back), it is taken as new, as any token saved there is.
import { RecentSet } from '../../host/recent-set.ts';

export const KNOWN_TOKENS_KEPT = 64;

export function knownTokens(): RecentSet<string> {
  return new RecentSet<string>(KNOWN_TOKENS_KEPT);
}
