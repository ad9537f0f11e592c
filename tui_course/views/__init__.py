"""The interactive views' states, free of Textual, so their rules are tested in milliseconds.

Shape of a view:

1. A frozen state object holds everything the view shows: no state lives in the widget
   (a child process or a timer it must stop is a resource the widget keeps, not state).
2. Each change is a method that returns the next state (the same object when nothing
   changes), never a mutation; side effects (saving, computing) stay with the caller,
   who starts them from the action or event that made the change, never from a draw,
   and applies their outcome as one more change.
3. The widget is a ui/widgets/state_view.StateView: it holds the state in one reactive,
   `state`, compared by identity, and draws it in one method, `draw(old, new)`, once per
   turn of the event loop however many changes the turn made (held keys coalesce); with
   `old` at hand a draw skips a part that did not change. The text comes from tui_course.render,
   the same functions the CLI uses where it prints the same thing. Views never import
   render; render reads view states.
4. Each action is one state change: `self.state = self.state.move(1)`.

On StateView (state here, widget in ui/widgets/): the attention explorer (attention.py,
attention_view.py), the PE explorer (pe.py, pe_view.py), the Real-model lab and a lesson's
real-model figure (real_model.py, real_model_view.py), a lesson's runnable listing
(listing.py, listing_view.py), a code question's editor (code_exercise.py, of the same name
there) and the training lab (training.py, training_panel.py; its form and runs table only
draw what the panel gives them).

Not on StateView: the quiz (quiz.py). Its widget, ui/widgets/quiz_view.QuizView, holds a
QuizRun in its own `run` reactive and draws it in an async method, because a new question
mounts and removes widgets (the choices, a code question's editor) and must wait for them.
"""
