import type { RunPlan } from './export-run-options.js';
import { withManifest, type ExportState, type Manifest, type Position } from './export-state.js';

/**
 * The state after a run saved `pos` (or only its manifest, when `pos` is null). A --defer-commit
 * run's position is pending; any other run's is current. Either way a pending position of an
 * earlier run is superseded: its manifest says so, and `state commit --run` refuses it.
 */
export function nextState(
  plan: RunPlan,
  state: ExportState | undefined,
  { pos, defer, manifest, nowMs }: { pos: Position | null; defer: boolean; manifest: Manifest; nowMs: number },
): ExportState {
  const now = new Date(nowMs).toISOString();
  const base: ExportState = state ?? {
    version: 1,
    key: plan.key!,
    kind: plan.target.kind,
    ...(plan.emailLabel ? { emailType: plan.emailLabel } : {}),
    profile: plan.profile,
    baseUrl: plan.baseUrl,
    account: plan.account,
    createdAt: now,
    updatedAt: now,
    current: { ...plan.start, cursor: null, seen: [], rows: 0, pages: 0 },
    runs: [],
  };
  let runs = withManifest(base.runs, manifest);
  const next: ExportState = {
    ...base,
    profile: plan.profile,
    baseUrl: plan.baseUrl,
    account: plan.account,
    updatedAt: now,
    runs,
  };
  if (!pos) return next;
  const earlier = base.pending && base.pending.runId !== manifest.runId ? base.pending.runId : undefined;
  if (earlier)
    runs = runs.map((m) =>
      m.runId === earlier && m.status === 'pending' ? { ...m, status: 'superseded' as const } : m,
    );
  next.runs = runs;
  if (defer) next.pending = { ...pos, runId: manifest.runId, savedAt: now };
  else {
    next.current = pos;
    // A pending position was based on an older current one: committing it later would go back.
    delete next.pending;
  }
  return next;
}

/**
 * The manifests of runs left `running` by a process that is gone (the caller holds the key's
 * lock, so none is live): killed, or their last state write failed. They read as interrupted.
 */
export function closeDeadRuns(state: ExportState): ExportState {
  if (!state.runs.some((m) => m.status === 'running')) return state;
  return {
    ...state,
    runs: state.runs.map((m) => (m.status === 'running' ? { ...m, status: 'interrupted' as const } : m)),
  };
}
