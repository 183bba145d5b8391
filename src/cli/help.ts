// `chatskin --help` and `chatskin help COMMAND`. Keep in step with README.md and docs/cli.md.

export const HELP = `chatskin: Twitch bot host and overlay style service

Usage: chatskin <command> [arguments] [--config FILE]

Commands:
  start                         Run the host: API at http://HOST:PORT/api/v1, overlay, bot
  seed FILE                     Apply a YAML fixture idempotently; prints the ids as JSON
  keys create LOGIN             Create the account's API key (printed once, last line)
  keys revoke LOGIN             Revoke the account's active API key
  premium LOGIN on|off          Switch the account's premium subscription
  overlays list LOGIN           Each overlay's id, name, template and browser-source URL
  overlays new-url LOGIN ID     A new browser-source URL for an overlay; the old one stops working
  store compact                 Give the disk back the database's free space (host stopped)
  chat say TEXT [--as LOGIN] [--role ROLE] [--url URL]
                                Send a chat line to a running host's local chat
  twitch auth                   Authorize the broadcaster's Twitch account (redemptions)
  twitch auth --bot             Authorize the bot account's chat token (twitch.bot.tokenFile)

Options:
  -c, --config FILE             Config file (default: $CHATSKIN_CONFIG, else config/default.yaml)
  -h, --help                    Help for a command
  -v, --version                 Print the version

Environment:
  CHATSKIN_CONFIG               Config file when there is no --config
  CHATSKIN_DEBUG=1              On an unexpected error, print its stack trace too

Docs: README.md, docs/cli.md, docs/config.md, docs/api.md, docs/twitch-setup.md
`;

const COMMAND_HELP: Record<string, string> = {
  start: `Usage: chatskin start [--config FILE]

Starts the whole host in one process: the overlay style service's HTTP API
(http://HOST:PORT/api/v1, from config http.host and http.port), the overlay
browser source (/overlay/TOKEN), its live push WebSocket, the bot with its
plugins, Twitch chat when configured, and the local chat (on unless
localChat.enabled is false, beside Twitch chat too). Prints the URLs, the
local chat's browser page (/local/chat/say) among them.
GET /healthz answers 200 once ready. SIGINT/SIGTERM/SIGHUP shut down gracefully.
An address it cannot listen on (port in use, a port below 1024 without the
rights, a host that is not this machine's) stops it with exit code 1 and a
line naming the address, http.host or http.port, and the config file.
`,
  seed: `Usage: chatskin seed FILE [--config FILE]

Applies a YAML fixture (accounts, overlays, skins, global skins, viewers,
purchases, grants, picks) idempotently and prints one JSON object of the
stored ids; for the example fixture of docs/cli.md, on a new database:
{"accounts":{"alice":{"id":1,"overlays":{"Main":1,"Second":2},"skins":{"neon":1}}},
 "global_skins":{"classic":2},"viewers":{"viewer_one":1}}
The format is in docs/cli.md.
`,
  keys: `Usage: chatskin keys create LOGIN [--config FILE]
       chatskin keys revoke LOGIN [--config FILE]

create: makes the account's API key and prints the token alone on the last
line of stdout; it is shown only this once (only its SHA-256 and a short
prefix are stored).
Refuses while the account has an active key: revoke it first.
revoke: revokes the active key; a running server refuses it on its next request.
`,
  premium: `Usage: chatskin premium LOGIN on|off [--config FILE]

Switches the account's premium subscription. Without it the API answers 403.
Takes effect on a running server's next request.
`,
  overlays: `Usage: chatskin overlays list LOGIN [--config FILE]
       chatskin overlays new-url LOGIN ID [--config FILE]

Prints each overlay of the account: id, name, template and the full
browser-source URL to paste into OBS (its base is overlay.publicUrl when set,
else http.host:http.port). With http.port 0 and no overlay.publicUrl it prints
the path (/overlay/TOKEN) and a note on stderr: the running host picks its
port and prints the full URLs when it starts. With service.mode remote these
are this host's own overlays, which the plugins do not restyle: a note on
stderr names the remote service, whose overlay goes in OBS.

new-url: gives overlay ID (from list) a new token and prints its new URL. The
old URL stops working: a running host closes the pages open on it within a
heartbeat, and they show "Overlay not found". For a URL shown on stream or
otherwise leaked: anyone with it sees the overlay and the channel's chat.
`,
  store: `Usage: chatskin store compact [--config FILE]

Rewrites the database (SQLite VACUUM) without the space its deleted rows
left, which it otherwise keeps for later writes, and prints its size before
and after. Refused while a chatskin start serves the database: stop the host
first (a chatskin start tried meanwhile is refused, as beside a running host).
Needs free disk space of about twice the database's size while it runs.
`,
  chat: `Usage: chatskin chat say TEXT [--as LOGIN] [--role ROLE] [--url URL] [--config FILE]

Sends a chat line to a running host's local chat (loopback only), as if
LOGIN (default: you) typed it. ROLE is one of broadcaster (or streamer),
moderator (mod), vip, subscriber (sub), everyone (viewer); default everyone.
TEXT may start with /me (an action) or // (a line that starts with /), as in
the terminal; the terminal's /as and /mod are --as and --role here.
--url defaults to the host's listening address from the config (never
overlay.publicUrl); with http.port 0 there is none to know, so give --url
the address the running host printed.
`,
  twitch: `Usage: chatskin twitch auth [--bot] [--config FILE]

Signs the broadcaster in to Twitch with the device code flow: prints a code
and the address to enter it at, waits for approval, checks the token is for
channel.login and has the scopes channel:read:redemptions and
channel:manage:redemptions, and stores it in twitch.broadcaster.tokenFile
(owner-only permissions). The running host refreshes it and saves it back.

--bot: the same for the bot's chat token: checks the token is for
twitch.bot.login and has the scopes chat:read and chat:edit, and stores it in
twitch.bot.tokenFile (which must be set, in place of twitch.bot.token). The
Twitch chat logs in with it and refreshes it when Twitch refuses it.

Needs an enabled twitch section with twitch.clientId, twitch.clientSecret
and twitch.bot (which the section requires, though only --bot uses it).
See docs/twitch-setup.md.
`,
};

export function commandHelp(name: string): string {
  return COMMAND_HELP[name] ?? HELP;
}
