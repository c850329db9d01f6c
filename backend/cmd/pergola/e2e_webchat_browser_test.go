package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/golang-jwt/jwt/v5"
)

// TestWebChatBrowser drives the widget in headless Chromium on SQLite:
// the hosted page (streamed answer, Markdown, XSS as text, history after
// a reload, new chat, a 375 px viewport), the embed bubble on a site of
// another origin (allowed, and refused by CORS) and a site's identified
// user. One browser serves every subtest, each in its own context.
func TestWebChatBrowser(t *testing.T) {
	browser := newBrowser(t)
	w := newWebSetup(t, backends()[0], 30*time.Millisecond)
	page := w.channel(t, "Hosted", map[string]any{})
	t.Run("hosted page", func(t *testing.T) { browserHostedPage(t, tab(t, browser), w, page) })
	allowed, refused := newSite(t), newSite(t)
	bubble := w.channel(t, "Bubble", map[string]any{"allowed_origins": []any{allowed.url}})
	members := w.channel(t, "Members", map[string]any{"allowed_origins": []any{allowed.url}, "end_user_secret": siteSecret})
	w.publish(t, page, bubble, members)
	t.Run("embed bubble", func(t *testing.T) {
		siteChat(t, tab(t, browser), w, allowed, bubble, refused)
	})
	t.Run("identified user", func(t *testing.T) { siteMember(t, browser, w, allowed, members) })
}

// page is the hosted page's shadow root.
const pageRoot = `document.querySelector('#pergola-chat').shadowRoot`

func browserHostedPage(t *testing.T, ctx context.Context, w *webSetup, ch string) {
	// The page must be published to open: before that it says so.
	do(t, ctx, chromedp.EmulateViewport(375, 740), chromedp.Navigate(w.s.base+"/chat/"+ch))
	if got := eval[string](t, ctx, `document.querySelector('#pergola-closed h1').textContent`); !strings.Contains(got, "not open yet") {
		t.Fatalf("page of an unpublished bot says %q", got)
	}
	w.publish(t, ch)
	do(t, ctx, chromedp.Navigate(w.s.base+"/chat/"+ch))
	r := pageRoot
	waitJS(t, ctx, "the bot's name, prologue and questions", r+`.querySelector('.pc-title').textContent === 'Helpdesk <Bot>' && `+
		r+`.querySelector('.pc-prologue strong').textContent === 'Helpdesk' && `+r+`.querySelectorAll('.pc-chip').length === 2`)
	if wide := eval[bool](t, ctx, `document.documentElement.scrollWidth <= 375 && `+r+`.querySelector('.pc-send').getBoundingClientRect().right <= 375`); !wide {
		t.Fatal("the page is wider than a 375 px viewport")
	}
	watchAnswers(t, ctx, r)
	do(t, ctx, chromedp.Click(chromedp.JSPath(r+`.querySelector('.pc-chip')`)))
	want := "echo: What can you do?"
	waitJS(t, ctx, "the answer to the suggested question", lastBot(r)+` === `+js(want)+` && !`+r+`.querySelector('.pc-input').disabled`)
	sawStreaming(t, ctx, want)
	xss := `make **this** bold <img src=x onerror="window.__xss=1">`
	do(t, ctx, chromedp.SendKeys(chromedp.JSPath(r+`.querySelector('.pc-input')`), xss+"\r"))
	waitJS(t, ctx, "the answer with Markdown", lastBot(r)+` === `+js("echo: make this bold <img src=x onerror=\"window.__xss=1\">"))
	checkRendered(t, ctx, r, xss)
	do(t, ctx, chromedp.Reload())
	waitJS(t, ctx, "the history after a reload", r+`.querySelectorAll('.pc-user').length === 2 && `+r+`.querySelectorAll('.pc-bot').length === 2`)
	if eval[int](t, ctx, r+`.querySelectorAll('.pc-prologue').length`) != 0 {
		t.Fatal("the prologue shows over a conversation")
	}
	checkRendered(t, ctx, r, xss)
	do(t, ctx, chromedp.Click(chromedp.JSPath(r+`.querySelector('.pc-new')`)))
	waitJS(t, ctx, "a new chat", r+`.querySelectorAll('.pc-user').length === 0 && `+r+`.querySelectorAll('.pc-chip').length === 2`)
}

// lastBot is the text of the last answer bubble under root.
func lastBot(root string) string {
	return `Array.from(` + root + `.querySelectorAll('.pc-bot')).map(b => b.textContent).pop()`
}

// watchAnswers records every text the last answer bubble shows, and
// whether typing was disabled then, in window.__seen.
func watchAnswers(t *testing.T, ctx context.Context, root string) {
	eval[bool](t, ctx, `(() => { window.__seen = []; const r = `+root+`;
		new MutationObserver(() => { const b = Array.from(r.querySelectorAll('.pc-bot')).pop();
			if (b) window.__seen.push({text: b.textContent, busy: r.querySelector('.pc-input').disabled}); })
		.observe(r.querySelector('.pc-log'), {subtree: true, childList: true, characterData: true}); return true })()`)
}

// sawStreaming checks that the answer showed partly, with typing
// disabled, before it was complete.
func sawStreaming(t *testing.T, ctx context.Context, final string) {
	partial := eval[int](t, ctx, `window.__seen.filter(s => s.busy && s.text.length > 0 && s.text.length < `+
		js(final)+`.length && `+js(final)+`.startsWith(s.text)).length`)
	if partial < 2 {
		t.Fatalf("the answer did not grow in place: %d partial texts seen while answering", partial)
	}
}

// checkRendered checks that the user's message shows as typed and that
// the answer has its bold word as <strong> and the payload as text.
func checkRendered(t *testing.T, ctx context.Context, root, typed string) {
	if got := eval[string](t, ctx, `Array.from(`+root+`.querySelectorAll('.pc-user')).pop().textContent`); got != typed {
		t.Fatalf("the user's message shows as %q", got)
	}
	strong := eval[string](t, ctx, `Array.from(`+root+`.querySelectorAll('.pc-bot')).pop().querySelector('strong').textContent`)
	images := eval[int](t, ctx, root+`.querySelectorAll('.pc-log img').length`)
	xss := eval[bool](t, ctx, `window.__xss === undefined`)
	if strong != "this" || images != 0 || !xss {
		t.Fatalf("rendered answer: strong %q, %d <img> in the log, payload not run %v", strong, images, xss)
	}
}

// bubbleRoot is the embed bubble's shadow root.
const bubbleRoot = `document.querySelector('#pergola-chat-bubble').shadowRoot`

func siteChat(t *testing.T, ctx context.Context, w *webSetup, shop *site, ch string, other *site) {
	r := bubbleRoot
	shop.set("/", embedPage(w.s.base, ch, ""))
	do(t, ctx, chromedp.Navigate(shop.url+"/"))
	waitJS(t, ctx, "the bubble", `window.PergolaChat && typeof PergolaChat.open === 'function' && `+r+`.querySelector('.pcb-bubble')`)
	do(t, ctx, chromedp.Click(chromedp.JSPath(r+`.querySelector('.pcb-bubble')`)))
	waitJS(t, ctx, "the widget in the panel", r+`.querySelector('.pc-title').textContent === 'Helpdesk <Bot>' && !`+r+`.querySelector('.pc-input').disabled`)
	if bg := eval[string](t, ctx, `getComputedStyle(`+r+`.querySelector('.pc-send')).backgroundColor`); bg == "rgb(255, 0, 0)" {
		t.Fatal("the site's CSS leaked into the widget")
	}
	input := chromedp.JSPath(r + `.querySelector('.pc-input')`)
	do(t, ctx, chromedp.SendKeys(input, "hello from"), chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierShift)),
		chromedp.SendKeys(input, "the shop\r"))
	waitJS(t, ctx, "the answer in the bubble", lastBot(r)+` === 'echo: hello fromthe shop' && `+
		r+`.querySelector('.pc-bot br') && `+r+`.querySelector('.pc-user').textContent === 'hello from\nthe shop'`)
	other.set("/", embedPage(w.s.base, ch, `data-open="true"`))
	do(t, ctx, chromedp.Navigate(other.url+"/"))
	waitJS(t, ctx, "the CORS error", r+` && `+r+`.querySelector('.pc-error') && !`+r+`.querySelector('.pc-error').hidden`)
	msg := eval[string](t, ctx, r+`.querySelector('.pc-error').textContent`)
	if !strings.Contains(msg, "Could not reach the chat server") || eval[bool](t, ctx, `!`+r+`.querySelector('.pc-input').disabled`) {
		t.Fatalf("a site not allowed shows %q with typing enabled", msg)
	}
}

func siteMember(t *testing.T, browser context.Context, w *webSetup, shop *site, ch string) {
	claims := func(sub string) jwt.MapClaims {
		return jwt.MapClaims{"sub": sub, "aud": ch, "exp": time.Now().Add(time.Hour).Unix(), "name": sub}
	}
	carol := siteToken(t, siteSecret, claims("carol"))
	shop.set("/carol", embedPage(w.s.base, ch, `data-open="true" data-user-token="`+carol+`"`))
	// Dave's page starts with an expired token: the widget fetches a new
	// one from the site's token URL.
	expired := claims("dave")
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	shop.set("/dave", embedPage(w.s.base, ch, `data-open="true" data-token-url="/token" data-user-token="`+siteToken(t, siteSecret, expired)+`"`))
	shop.mu.Lock()
	shop.token = siteToken(t, siteSecret, claims("dave"))
	shop.mu.Unlock()
	for _, who := range []string{"carol", "dave"} {
		ctx := tab(t, browser)
		do(t, ctx, chromedp.Navigate(shop.url+"/"+who))
		r := bubbleRoot
		waitJS(t, ctx, "the open widget", r+` && `+r+`.querySelector('.pc-chip') && !`+r+`.querySelector('.pc-input').disabled`)
		do(t, ctx, chromedp.Click(chromedp.JSPath(r+`.querySelector('.pc-chip')`)))
		waitJS(t, ctx, "the answer", lastBot(r)+` === 'echo: What can you do?'`)
	}
	users := map[string]bool{}
	for _, d := range deliveries(t, w.s, w.bot, ch) {
		users[str(d, "end_user")] = true
	}
	if len(users) != 2 || !users["web:carol"] || !users["web:dave"] {
		t.Fatalf("end users of the deliveries = %v; want web:carol and web:dave", users)
	}
}
