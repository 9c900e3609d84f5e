// A read-only value with a copy button. The clipboard API needs a secure context (HTTPS or
// localhost); elsewhere the text is selected so that the person can copy it by hand.

import { useRef, useState } from 'preact/hooks';

export function CopyField({ value, label, id }: { value: string; label: string; id: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'manual'>('idle');

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      input.current?.focus();
      input.current?.select();
      setState('manual');
    }
  };

  return (
    <div class="copy-field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input
          id={id}
          ref={input}
          class="mono"
          type="text"
          readOnly
          value={value}
          onFocus={(e) => e.currentTarget.select()}
          spellcheck={false}
        />
        <button type="button" class="button" onClick={copy}>
          {state === 'copied' ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p class="muted small" aria-live="polite">
        {state === 'copied' ? 'Copied to the clipboard.' : state === 'manual' ? 'Selected: press Ctrl+C (⌘C) to copy.' : ''}
      </p>
    </div>
  );
}
