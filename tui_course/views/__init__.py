"""The interactive views' states, free of Textual, so their rules are tested in milliseconds.

Shape of a view (quiz.py is the model; attention, code exercise, listing, PE, real-model
lab and training states follow it):

1. A frozen state object holds everything the view shows: no state lives in the widget.
2. Each change is a method that returns the next state (the same object when nothing
   changes), never a mutation; side effects (saving, computing) stay with the caller,
   who applies their outcome as one more change.
3. The widget holds its state in one reactive (`run`, `state`) and has one watcher that
   draws it; the text comes from tui_course.render (render/quiz.py for quiz.py, ...), the
   same functions the CLI uses where it prints the same thing. Views never import render;
   render reads view states for types only.
4. Each action is one state change: `self.state = self.state.move(1)`. Held keys coalesce:
   the watcher draws the latest state only, and skips a part whose text did not change.

Not yet in this shape: the training panel keeps "running" and "blocked" beside its state,
and a lesson's real-model figure (ui/widgets/real_model_view.RealAttentionFigure) holds its
results in the widget, with no view state.
"""
