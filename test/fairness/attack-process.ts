// The attack of test/fairness/harness.ts in a process of its own, so that the attacker's client work
// (building and sending 24 MB uploads, garbage frames) never delays the victim's requests or the
// /health probes on the measuring side's event loop: only the node under test is shared.
//   parent -> child: { setup: { nodes, keys, locals: { dripUrl, slowHookUrl }, parts, maxJobs } } once,
//                    then 'start' and 'stop' for each phase of the attack
//   child -> parent: { ready: true } once the inputs are made, { started: true }, { stats } after each stop
import { attack, makeInputs, type AttackPart, type Inputs, type Keys, type Locals } from './harness.js';
import type { NodeProcess } from '../helpers/node-process.js';

interface Setup {
  nodes: Array<{ url: string; realtimePort: number }>;
  keys: Keys;
  locals: { dripUrl: string; slowHookUrl: string };
  parts?: AttackPart[];
  maxJobs?: number;
}

let setup: Setup | null = null;
let inputs: Inputs | null = null;
let stop: (() => void) | null = null;

process.on('message', (m: { setup?: Setup } | 'start' | 'stop' | 'exit') => {
  if (typeof m === 'object' && m.setup) {
    setup = m.setup;
    inputs = makeInputs();
    process.send!({ ready: true });
  } else if (m === 'start' && setup && inputs && !stop) {
    const stopped = new Promise<void>((r) => (stop = r));
    void attack(
      setup.nodes as unknown as NodeProcess[],
      setup.keys,
      inputs,
      setup.locals as unknown as Locals,
      stopped,
      setup.parts,
      setup.maxJobs,
    ).then((stats) => process.send!({ stats }));
    process.send!({ started: true });
  } else if (m === 'stop' && stop) {
    stop();
    stop = null;
  } else if (m === 'exit') {
    process.exit(0);
  }
});
