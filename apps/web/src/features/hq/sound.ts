/**
 * The audible SOS cue: a short two-tone beep made with WebAudio (no audio file to load). Browsers block sound until
 * the person has interacted with the page, so the AudioContext is created by the "Sound on" click itself and only
 * used after that.
 */
export interface Beeper {
  beep(): void;
  close(): void;
}

type AudioContextCtor = typeof AudioContext;

export function createBeeper(): Beeper | null {
  const Ctor: AudioContextCtor | undefined =
    window.AudioContext ??
    (window as unknown as { webkitAudioContext?: AudioContextCtor }).webkitAudioContext;
  if (!Ctor) return null;
  const ctx = new Ctor();
  void ctx.resume();
  return {
    beep() {
      const t0 = ctx.currentTime + 0.02;
      // Three pulses alternating 880 / 660 Hz: distinct from a phone's own notification sounds.
      for (let i = 0; i < 3; i++) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.type = 'square';
        osc.frequency.value = i % 2 ? 660 : 880;
        const start = t0 + i * 0.25;
        gain.gain.setValueAtTime(0.0001, start);
        gain.gain.exponentialRampToValueAtTime(0.25, start + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.2);
        osc.connect(gain).connect(ctx.destination);
        osc.start(start);
        osc.stop(start + 0.22);
      }
    },
    close() {
      void ctx.close();
    },
  };
}
