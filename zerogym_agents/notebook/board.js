// The page side of zerogym_agents.notebook.BoardWidget: the board picture, the buttons and the texts.
// A click on the picture is sent to the kernel in the picture's own pixels (its natural size), which
// zerogym.render.cell_geometry maps to a cell; everything shown comes back from the kernel as traits.

const LABELS = { pass: "Pass", swap: "Swap", undo: "Undo", hint: "Hint", new: "New game" };

function element(tag, className, parent) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (parent) parent.appendChild(node);
  return node;
}

function render({ model, el }) {
  const root = element("div", "zerogym-board", el);
  const bar = element("div", "zerogym-bar", root);
  const sideLabel = element("label", "zerogym-side", bar);
  sideLabel.append("You play ");
  const side = element("select", "", sideLabel);
  side.setAttribute("aria-label", "your side");
  const buttons = element("span", "zerogym-buttons", bar);
  const status = element("div", "zerogym-status", root);
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  const img = element("img", "zerogym-picture", root);
  img.alt = "the board: click a cell to move";
  const message = element("pre", "zerogym-message", root);
  message.setAttribute("aria-live", "polite");
  const result = element("pre", "zerogym-result", root);
  const moves = element("div", "zerogym-moves", root);
  const details = element("details", "zerogym-details", root);
  element("summary", "", details).textContent = "Board as text";
  const text = element("pre", "zerogym-text", details);

  img.addEventListener("click", (event) => {
    if (model.get("busy") || !img.naturalWidth) return;
    const box = img.getBoundingClientRect();
    model.send({
      kind: "click",
      x: ((event.clientX - box.left) * img.naturalWidth) / box.width,
      y: ((event.clientY - box.top) * img.naturalHeight) / box.height,
    });
  });
  side.addEventListener("change", () => model.send({ kind: "side", human: Number(side.value) }));

  function show() {
    root.dataset.game = model.get("game");
    root.dataset.busy = model.get("busy") ? "true" : "false";
    root.dataset.moves = model.get("moves");
    img.src = model.get("image");
    status.textContent = model.get("busy") ? "Thinking..." : model.get("status");
    message.textContent = model.get("message");
    result.textContent = model.get("result");
    result.hidden = !model.get("result");
    const played = JSON.parse(model.get("moves"));
    moves.textContent = played.length
      ? "Moves: " + played.map((name, i) => `${i + 1}. ${name}`).join("  ")
      : "No moves yet.";
    text.textContent = model.get("board");
    const sides = model.get("sides");
    side.replaceChildren(
      ...sides.map((name, i) => {
        const option = document.createElement("option");
        option.value = String(i);
        option.textContent = `${name}, moving ${i === 0 ? "first" : "second"}`;
        return option;
      })
    );
    side.value = String(model.get("human"));
    const enabled = JSON.parse(model.get("buttons"));
    buttons.replaceChildren(
      ...Object.keys(enabled).map((name) => {
        const button = document.createElement("button");
        button.className = `zerogym-button zerogym-${name}`;
        button.textContent = LABELS[name] || name;
        button.dataset.button = name;
        button.disabled = !enabled[name] || model.get("busy");
        button.addEventListener("click", () => model.send({ kind: "press", button: name }));
        return button;
      })
    );
  }

  const traits = ["game", "image", "board", "moves", "status", "message", "result", "buttons", "sides", "human", "busy"];
  for (const name of traits) model.on(`change:${name}`, show);
  show();
  return () => {
    for (const name of traits) model.off(`change:${name}`, show);
  };
}

export default { render };
