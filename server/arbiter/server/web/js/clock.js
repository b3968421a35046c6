// @ts-check
// Both players' clocks. The server keeps time: every match_start, match_state, moved and end
// message carries both remaining times, and only the side to move runs. Between messages the
// running clock counts down here from the last reading, so it ticks smoothly; the next message
// corrects any drift. With a per-move limit the running side also sees what is left of it.

import { formatClock, h } from "./ui.js";

const TICK_MS = 100;
const LOW_MS = 10000;

export class Clocks {
  constructor(spec) {
    this.spec = spec;
    this.readings = [spec.initial_ms, spec.initial_ms];
    this.running = null;
    this.since = performance.now();
    /** @type {number | undefined} */
    this.timer = undefined;
    this.faces = [0, 1].map((color) => {
      const time = h("span", { class: "time" });
      const limit = h("small", { class: "move-limit" });
      return { el: h("div", { class: "clock", "data-color": color, role: "timer" }, time, limit), time, limit };
    });
    this.render();
  }

  /** New readings from the server; `running` is the colour whose clock runs, or null. */
  update(clocksMs, running) {
    this.readings = [...clocksMs];
    this.running = running;
    this.since = performance.now();
    clearInterval(this.timer);
    this.timer = running === null ? undefined : setInterval(() => this.render(), TICK_MS);
    this.render();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = undefined;
    this.running = null;
    this.render();
  }

  render() {
    const elapsed = performance.now() - this.since;
    for (const [color, face] of this.faces.entries()) {
      const running = this.running === color;
      const left = this.readings[color] - (running ? elapsed : 0);
      face.time.textContent = formatClock(left);
      face.el.classList.toggle("running", running);
      face.el.classList.toggle("low", left < LOW_MS);
      const limit = this.spec.move_limit_ms;
      face.limit.textContent = running && limit ? `move ${formatClock(limit - elapsed)}` : "";
    }
  }
}
