// Live or test: which keys' balance and counters a page works with.

import type { KeyMode } from '../api';

export function ModeSwitch({ value, onChange, label }: { value: KeyMode; onChange: (m: KeyMode) => void; label: string }) {
  return (
    <fieldset class="segmented">
      <legend>{label}</legend>
      {(['live', 'test'] as const).map((m) => (
        <label key={m} class={value === m ? 'selected' : ''}>
          <input type="radio" name={`mode-${label}`} value={m} checked={value === m} onChange={() => onChange(m)} />
          {m === 'live' ? 'Live' : 'Test'}
        </label>
      ))}
    </fieldset>
  );
}
