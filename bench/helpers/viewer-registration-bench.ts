// bench:chat's third part: registering first-time chatters who arrive one per event-loop turn
// (as a quieter real chat delivers them), through the host's registration queue against one
// registerViewer call each as they come (the baseline), on a fresh SQLite file each, in this
// process. Counts COMMITs and CPU per registration.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createViewerRegistrationQueue } from '../../src/adapters/viewer-registration-queue.ts';
import { parseConfig } from '../../src/config/index.ts';
import { openService } from '../../src/runtime/open-service.ts';

export interface RegistrationResult {
  commits: number;
  cpuMicrosPerViewer: number;
  wallMs: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function measureViewerRegistration(mode: 'queued' | 'one-each', viewers: number): Promise<RegistrationResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-bench-registration-'));
  const opened = await openService(parseConfig({ store: { path: path.join(dir, 'chatskin.sqlite') }, channel: { login: 'alice' } }));
  try {
    const { service, store } = opened;
    let failed = 0;
    const queue = createViewerRegistrationQueue({ register: (batch) => service.registerViewers(batch), onError: () => failed++ });
    const direct: Promise<unknown>[] = [];
    const commitsBefore = store.commits;
    const cpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    for (let i = 0; i < viewers; i++) {
      const viewer = { twitchUserId: String(700_000 + i), login: `first_timer_${i}`, displayName: `First_Timer_${i}` };
      if (mode === 'queued') queue.add(viewer);
      else direct.push(service.registerViewer(viewer).catch(() => failed++));
      await nextTurn();
    }
    await Promise.all(direct);
    await queue.stop();
    const cpu = process.cpuUsage(cpuBefore);
    if (failed > 0) throw new Error(`${failed} registrations failed`);
    return { commits: store.commits - commitsBefore, cpuMicrosPerViewer: (cpu.user + cpu.system) / viewers, wallMs: performance.now() - startedAt };
  } finally {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
