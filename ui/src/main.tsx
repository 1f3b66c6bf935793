/** Entry: read the route from the URL, load it, render. */
import { render } from 'preact';
import { App } from './app.js';
import { readUrl, openRecording, recId } from './model.js';
import './style.css';

readUrl();
void openRecording(recId.value);
render(<App />, document.getElementById('app')!);
