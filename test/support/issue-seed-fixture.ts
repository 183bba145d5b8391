// The seed fixture given in the service's issue (its format section), as YAML: what `chatskin seed`
// and applySeed must take as written.
export const ISSUE_SEED_FIXTURE = `
accounts:
  - login: alice
    premium: true
    overlays:
      - { name: Main, template: bubbles, default: true, values: { bubble.width: 420 } }
      - { name: Second, template: bubbles, sync_source: Main, overrides: { avatar.size: 80 } }
    skins:
      - { slug: neon, name: Neon, description: Bright, template: bubbles, availability: purchase, active: true, values: { bubble.background-color: "#ff00ff" }, roles: [moderator] }
global_skins:
  - { slug: classic, name: Classic, template: bubbles, availability: free, values: {} }
viewers:
  - { twitch_user_id: "1001", twitch_username: viewer_one }
purchases:
  - { account: alice, viewer: viewer_one, skin: neon }
`;
