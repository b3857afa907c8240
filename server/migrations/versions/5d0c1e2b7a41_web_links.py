"""one-time sign-in links for the pages (pbem open)

Revision ID: 5d0c1e2b7a41
Revises: a3e4d306a5a0
Create Date: 2026-12-01 08:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '5d0c1e2b7a41'
down_revision = 'a3e4d306a5a0'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('web_links',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_hash')
    )
    with op.batch_alter_table('web_links', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_web_links_expires_at'), ['expires_at'], unique=False)


def downgrade():
    with op.batch_alter_table('web_links', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_web_links_expires_at'))
    op.drop_table('web_links')
