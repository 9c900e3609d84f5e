// The nodes' configuration for the fairness run: the production defaults except what a test needs
// (two engine workers so jobs have two runners and one account may hold one; the drip sources and
// webhook receivers on 127.0.0.1 allowed; short live idle bounds so silent sockets are recycled
// within the run; the download rate judged over 4 s instead of 20, so a drip source is cut after
// 4 s and the attacker's jobs end within each cycle of the test instead of running into the next
// idle round: the drip attack is the same, its bound shorter).
export function fairnessEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PARLA_WORKERS: '2',
    PARLA_STT_DECODERS: '2',
    PARLA_FETCH_ALLOW_HOSTS: '127.0.0.1:*',
    REALTIME_IDLE_TIMEOUT_SECONDS: '5',
    PARLA_QUEUE_MAX: '64',
    PARLA_FETCH_RATE_WINDOW_SECONDS: '4',
    // The attacker's transcriptions (whisper-1 = cipher-max) load the accurate profile's decoders,
    // which the victim (cipher-fast) never uses: ~90 MB each, resident until idle for the TTL (10
    // minutes by default). Memory's return is measured 30 s after the attack, so they are given
    // 15 s here: what is measured is that the node gives back what the attack made it take.
    PARLA_MODEL_TTL: '15',
    ...extra,
  };
}
