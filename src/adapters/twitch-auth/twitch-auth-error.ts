// Why `chatskin twitch auth` failed, worded for the terminal (the CLI prints it as one line).

export class TwitchAuthError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TwitchAuthError';
  }
}
