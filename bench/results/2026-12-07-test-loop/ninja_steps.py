# Sums a ninja log's step times by kind of step (an edge with several outputs counted once).
import sys, collections
def load(path):
    d={}
    for l in open(path):
        if l.startswith('#'): continue
        s,e,m,o,h=l.rstrip('\n').split('\t')
        d[o]=(int(s),int(e))
    edges={}
    for o,(s,e) in d.items():
        edges.setdefault((s,e),[]).append(o)
    return edges
def cat(o):
    if o.endswith('.cu.o'): return 'cuda obj'
    if o.endswith('.o'):
        if o.startswith('tests/'): return 'test obj'
        if o.startswith(('bench/','examples/','testkit/')): return 'example/bench obj'
        return 'lib obj'
    if o.endswith('.a'): return 'static lib'
    if o.endswith('.so'): return 'shared lib link'
    if o.startswith('tests/'): return 'test link (+discovery)'
    return 'other link'
for path in sys.argv[1:]:
    edges=load(path)
    tot=sum(e-s for (s,e) in edges)
    span=max(e for s,e in edges)-min(s for s,e in edges)
    print(f'== {path}\n  {len(edges)} steps, sum of step times {tot/1000:.0f} s, first start to last end {span/1000:.0f} s')
    c=collections.Counter(); n=collections.Counter()
    for (s,e),outs in edges.items():
        k=cat(sorted(outs,key=len)[0]); c[k]+=e-s; n[k]+=1
    for k,v in c.most_common(): print(f'  {k:24s} {n[k]:4d} steps {v/1000:7.1f} s')
