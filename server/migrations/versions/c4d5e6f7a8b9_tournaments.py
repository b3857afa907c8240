"""tournaments: the signed document, the entries and withdrawals, each round's games

Revision ID: c4d5e6f7a8b9
Revises: b8d2f4a6c1e3
Create Date: 2026-12-02 03:00:00.000000

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'c4d5e6f7a8b9'
down_revision = 'b8d2f4a6c1e3'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'tournaments',
        sa.Column('id', sa.String(length=64), nullable=False),
        sa.Column('organiser_id', sa.Integer(), nullable=False),
        sa.Column('document', sa.JSON(), nullable=False),
        sa.Column('signature', sa.String(length=128), nullable=False),
        sa.Column('seed', sa.String(length=64), nullable=False),
        sa.Column('status', sa.String(length=10), nullable=False),
        sa.Column('close_signature', sa.String(length=128), nullable=True),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['organiser_id'], ['players.id'], ),
        sa.PrimaryKeyConstraint('id'))
    op.create_index(op.f('ix_tournaments_status'), 'tournaments', ['status'], unique=False)
    op.create_table(
        'tournament_entries',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.String(length=64), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('public_key', sa.String(length=64), nullable=False),
        sa.Column('signature', sa.String(length=128), nullable=False),
        sa.Column('withdrawn_from', sa.Integer(), nullable=True),
        sa.Column('withdraw_signature', sa.String(length=128), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournaments.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('tournament_id', 'player_id'))
    op.create_index(op.f('ix_tournament_entries_tournament_id'), 'tournament_entries',
                    ['tournament_id'], unique=False)
    op.create_table(
        'tournament_rounds',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.String(length=64), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('pairing', sa.JSON(), nullable=False),
        sa.Column('games', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournaments.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('tournament_id', 'round'))
    op.create_index(op.f('ix_tournament_rounds_tournament_id'), 'tournament_rounds',
                    ['tournament_id'], unique=False)


def downgrade():
    op.drop_index(op.f('ix_tournament_rounds_tournament_id'), table_name='tournament_rounds')
    op.drop_table('tournament_rounds')
    op.drop_index(op.f('ix_tournament_entries_tournament_id'), table_name='tournament_entries')
    op.drop_table('tournament_entries')
    op.drop_index(op.f('ix_tournaments_status'), table_name='tournaments')
    op.drop_table('tournaments')
