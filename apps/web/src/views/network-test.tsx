/**
 * The pre-call network test in Settings (issue 17): "Test network" places a 10 s test call to
 * the engine's echo number (`network-test/network-test-runner.ts`), shows its progress
 * ("Testing… N s", the seconds left), then the grade of the MOS the SDK's own quality monitor
 * measured with the jitter, packet loss and round-trip time, or why it failed. It runs only
 * while the console waits for a lead with the phone ready; closing Settings stops it.
 */
import { useEffect, useId, useState, useSyncExternalStore } from 'react';
import { NETWORK_TEST_ERRORS, NETWORK_TEST_LABEL } from '../constants';
import type { NetworkReport } from '../network-test/network-report';
import {
  NetworkTestRunner,
  isRunning,
  type NetworkTestSnapshot,
} from '../network-test/network-test-runner';
import { useConsoleSnapshot, useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';

/** What the status line says while the test runs (nothing otherwise). */
function progressText(test: NetworkTestSnapshot): string {
  switch (test.state) {
    case 'authorizing':
    case 'connecting':
      return 'Calling the echo test…';
    case 'testing':
      return `Testing… ${Math.ceil((test.durationMs - test.elapsedMs) / 1000)} s`;
    default:
      return '';
  }
}

/** See the module comment. */
export function NetworkTest() {
  const { api, controller, platform } = useServices();
  const { console: consoleState, phone } = useConsoleSnapshot();
  const [runner] = useState(
    () =>
      new NetworkTestRunner({
        authorize: () => api.startNetworkTest(),
        connect: (params) => controller.placeNetworkTestCall(params),
        timers: platform.timers,
        clock: platform.clock,
      }),
  );
  // Leaving Settings ends a test under way.
  useEffect(() => () => runner.cancel(), [runner]);
  const test = useSyncExternalStore(runner.subscribe, runner.getSnapshot);
  const labelId = useId();
  const running = isRunning(test);
  const ready = consoleState.view === 'waiting' && phone === 'ready';
  return (
    <div className="settings-row network-test" role="group" aria-labelledby={labelId}>
      <span id={labelId} className="field-label">
        Network
      </span>
      {!ready && !running && (
        <p className="muted settings-hint">{NETWORK_TEST_ERRORS.notWaiting}</p>
      )}
      {/* Not disabled while running: the focus stays on it (a second press does nothing). */}
      <button
        type="button"
        className="btn btn-secondary"
        disabled={!ready && !running}
        aria-disabled={running || undefined}
        aria-busy={running || undefined}
        onClick={() => void runner.start()}
      >
        {NETWORK_TEST_LABEL}
      </button>
      <p className="muted network-test-status" role="status">
        {progressText(test)}
      </p>
      {test.state === 'testing' && (
        <progress
          className="network-test-progress"
          aria-label="Network test progress"
          max={test.durationMs}
          value={test.elapsedMs}
        />
      )}
      {test.state === 'done' && <NetworkReportList report={test.report} />}
      <ErrorBanner message={test.state === 'failed' ? test.error : null} />
    </div>
  );
}

/** The grade and the three figures, as a description list. */
function NetworkReportList({ report }: { readonly report: NetworkReport }) {
  return (
    <dl className="network-test-result" aria-label="Network test result">
      <div>
        <dt>Quality</dt>
        <dd>
          {report.grade}{' '}
          <span className="network-test-mos">(MOS {report.mos.average.toFixed(2)})</span>
        </dd>
      </div>
      <div>
        <dt>Jitter</dt>
        <dd>{report.jitterMs.toFixed(1)} ms</dd>
      </div>
      <div>
        <dt>Packet loss</dt>
        <dd>{report.packetLossPercent.toFixed(1)} %</dd>
      </div>
      <div>
        <dt>Round-trip time</dt>
        <dd>{report.rttMs === null ? 'not measured' : `${Math.round(report.rttMs)} ms`}</dd>
      </div>
    </dl>
  );
}
