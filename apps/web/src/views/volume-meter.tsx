import { INPUT_VOLUME_SCALE, OUTPUT_VOLUME_SCALE, VOLUME_METER_BARS } from '../constants';
import { useVolume } from '../use-services';
import { litBars } from '../ui/format';

const BARS = Array.from({ length: VOLUME_METER_BARS }, (_, i) => i);

function Meter({ label, bars }: { readonly label: string; readonly bars: number }) {
  return (
    <div className="meter">
      <span className="meter-label">{label}</span>
      <span
        className="meter-bars"
        role="meter"
        aria-label={`${label} level`}
        aria-valuemin={0}
        aria-valuemax={VOLUME_METER_BARS}
        aria-valuenow={bars}
      >
        {BARS.map((i) => (
          <span key={i} className={`meter-bar${i < bars ? ' is-lit' : ''}`} />
        ))}
      </span>
    </div>
  );
}

/** Input (microphone, ×10) and output (speaker, ×20) volume on 5 bars (spec section 9). */
export function VolumeMeters() {
  const { input, output } = useVolume();
  return (
    <div className="meters">
      <Meter label="Mic" bars={litBars(input, INPUT_VOLUME_SCALE)} />
      <Meter label="Speaker" bars={litBars(output, OUTPUT_VOLUME_SCALE)} />
    </div>
  );
}
