// @ts-check
// Sounds: a short tone on the opponent's move, on low time and at the end of a game. Off until the
// person turns them on with the one switch in the header, remembered across visits (localStorage).
// The tones are made with WebAudio: nothing to fetch, nothing the page's Content-Security-Policy refuses.

const KEY = "arbiter.sound";
/** Each sound as [frequency Hz, seconds] notes, played one after the other. */
const TONES = { move: [[660, 0.06]], low: [[880, 0.08], [880, 0.08]], end: [[523, 0.12], [392, 0.22]] };

/** @type {AudioContext | null} */
let audio = null;

export function soundOn() {
  try {
    return localStorage.getItem(KEY) === "on";
  } catch {
    return false; // storage refused (a private window's policy): sounds stay off
  }
}

function setSound(on) {
  try {
    localStorage.setItem(KEY, on ? "on" : "off");
  } catch {
    // nothing to remember it in: it lasts for this page
  }
}

/** Play `kind` ("move", "low" or "end") if sounds are on; the page's root says what sounded last (tests). */
export function play(kind) {
  if (!soundOn()) return;
  const root = document.documentElement;
  root.dataset.sound = kind;
  root.dataset.sounds = String(Number(root.dataset.sounds || 0) + 1);
  try {
    audio = audio || new AudioContext();
    let at = audio.currentTime;
    for (const [frequency, seconds] of TONES[kind]) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.12, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + seconds);
      tone.connect(gain).connect(audio.destination);
      tone.start(at);
      tone.stop(at + seconds);
      at += seconds + 0.04;
    }
  } catch {
    // no audio device: the game goes on silently
  }
}

/** The header's switch: a toggle button whose state is the stored setting. */
export function soundSwitch() {
  const button = document.createElement("button");
  button.id = "sound-switch";
  button.className = "small sound-switch";
  button.type = "button";
  const show = () => {
    const on = soundOn();
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Sound on" : "Sound off";
    button.title = on ? "Sounds on the opponent's move, low time and the end: click to mute" : "Click for sounds";
  };
  button.addEventListener("click", () => {
    setSound(!soundOn());
    show();
    if (soundOn()) play("move"); // what it sounds like (and a user gesture unlocks the audio)
  });
  show();
  return button;
}
