// Step through the frames of a `minigrad-backward-steps` block: one frame at a time, with Prev / Next buttons
// (and the arrow keys while the block has the focus). Without JavaScript every frame stays visible.
document.addEventListener("DOMContentLoaded", () => {
  for (const stepper of document.querySelectorAll(".minigrad-stepper")) {
    const frames = Array.from(stepper.querySelectorAll(":scope > figure"));
    if (frames.length < 2) continue;
    let current = 0;
    const bar = document.createElement("div");
    bar.className = "minigrad-stepper-bar";
    const previous = Object.assign(document.createElement("button"), { type: "button", textContent: "◀ Prev" });
    const next = Object.assign(document.createElement("button"), { type: "button", textContent: "Next ▶" });
    const where = document.createElement("span");
    bar.append(previous, where, next);
    stepper.prepend(bar);
    stepper.tabIndex = 0;
    const show = (index) => {
      current = Math.max(0, Math.min(frames.length - 1, index));
      frames.forEach((frame, i) => { frame.style.display = i === current ? "" : "none"; });
      where.textContent = current === 0 ? `start (${frames.length - 1} steps)` : `step ${current} of ${frames.length - 1}`;
      previous.disabled = current === 0;
      next.disabled = current === frames.length - 1;
    };
    previous.addEventListener("click", () => show(current - 1));
    next.addEventListener("click", () => show(current + 1));
    stepper.addEventListener("keydown", (event) => {
      if (event.key === "ArrowLeft") show(current - 1);
      if (event.key === "ArrowRight") show(current + 1);
    });
    show(0);
  }
});
