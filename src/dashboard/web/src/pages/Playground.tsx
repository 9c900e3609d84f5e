// Playground: try the speech API with this account, no key needed (the session stands in for
// one; live or test mode picks which balance pays).

import { useState } from 'preact/hooks';
import type { KeyMode } from '../api';
import { ModeSwitch } from '../components/ModeSwitch';
import { SttPanel } from './SttPanel';
import { TtsPanel } from './TtsPanel';
import { LivePanel } from './LivePanel';

export function PlaygroundPage({ plan }: { plan: string }) {
  const [mode, setMode] = useState<KeyMode>('test');
  return (
    <>
      <header class="page-head row wrap between">
        <div>
          <h1>Playground</h1>
          <p class="muted">Real requests to the speech API, billed like any other.</p>
        </div>
        <ModeSwitch value={mode} onChange={setMode} label="Bill to" />
      </header>
      <TtsPanel mode={mode} plan={plan} />
      <SttPanel mode={mode} />
      <LivePanel mode={mode} />
    </>
  );
}
