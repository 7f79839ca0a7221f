#!/usr/bin/env python3
"""GermEval 2014 TSV -> eval JSONL (PERSON spans of the outer level, tokens joined by spaces).

Usage: python3 scripts/eval/germeval_to_jsonl.py ../shared/data/ner/germeval2014-dev.tsv target/eval/germeval-dev.jsonl
Then: cargo run --release --example eval_predictions target/eval/germeval-dev.jsonl target/eval/ge.jsonl
      python3 ../shared/eval/score.py --corpus target/eval/germeval-dev.jsonl --predictions target/eval/ge.jsonl
(only the PERSON row counts: the corpus holds no other types)."""
import json,sys
src,dst=sys.argv[1],sys.argv[2]
out=open(dst,'w'); n=0
def flush(toks):
    global n
    if not toks: return
    text=''; spans=[]; cur=None
    for w,tag in toks:
        if text: text+=' '
        s=len(text); text+=w; e=len(text)
        if tag=='B-PER' or (tag=='I-PER' and cur is None):
            if cur: spans.append(cur)
            cur=[s,e]
        elif tag=='I-PER': cur[1]=e
        else:
            if cur: spans.append(cur); cur=None
    if cur: spans.append(cur)
    n+=1
    out.write(json.dumps({"id":f"ge-{n}","lang":"de","text":text,"spans":[{"start":a,"end":b,"type":"PERSON","value":text[a:b]} for a,b in spans]},ensure_ascii=False)+'\n')
toks=[]
for line in open(src,encoding='utf-8'):
    line=line.rstrip('\n')
    if line.startswith('#'): continue
    if not line.strip(): flush(toks); toks=[]; continue
    p=line.split('\t'); toks.append((p[1],p[2]))
flush(toks)
